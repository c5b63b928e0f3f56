import Foundation
import IAPSimJSON

/// The simulator's own clock, kept in the state so that every `iapsim` process agrees on it.
///
/// It reads `base` plus the real time passed since `anchor`, times the time rate's speed;
/// frozen, it reads `base` and nothing moves until `iapsim clock` moves it. With no clock
/// state it is the real clock.
public struct SimulatedClock: Sendable, Equatable {
    /// Simulated time at `anchor`.
    public var base: Date
    /// Real time when `base` was set.
    public var anchor: Date
    public var frozen: Bool

    public init(base: Date, anchor: Date, frozen: Bool) {
        self.base = base
        self.anchor = anchor
        self.frozen = frozen
    }

    /// The latest time the clock is set, advanced or runs to: 9000-01-01T00:00:00Z. The state
    /// format holds dates up to 9999-12-31T23:59:59Z (`ISO8601Date.latest`); the 999 years
    /// between leave room for every date a purchase at the clock's time produces: a period
    /// (the longest Apple offers is a year; an offer's periods add up to a few), a 16-day grace
    /// period and a 60-day billing retry (Apple, "Enable billing grace period for auto-renewable
    /// subscriptions", "Reducing involuntary subscriber churn"). Longer ones end at `latest`.
    public static let latest = Date(timeIntervalSince1970: 221_845_392_000)
    /// The earliest: 0001-01-01T00:00:00Z, the first date the state format holds.
    public static let earliest = ISO8601Date.earliest

    /// The simulated time at real time `real`, within `earliest...latest`.
    public func now(real: Date, rate: TimeRate) -> Date {
        let reading = frozen ? base : base + real.timeIntervalSince(anchor) * rate.clockSpeed
        return reading.timeIntervalSince1970.isNaN ? base : min(max(reading, Self.earliest), Self.latest)
    }

    /// The simulated time, whether or not a clock was ever set.
    public static func now(_ clock: SimulatedClock?, real: Date, rate: TimeRate) -> Date {
        clock?.now(real: real, rate: rate) ?? min(max(real, earliest), latest)
    }
}
