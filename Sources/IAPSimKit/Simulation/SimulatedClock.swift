import Foundation

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

    /// The simulated time at real time `real`.
    public func now(real: Date, rate: TimeRate) -> Date {
        frozen ? base : base + real.timeIntervalSince(anchor) * rate.clockSpeed
    }

    /// The simulated time, whether or not a clock was ever set.
    public static func now(_ clock: SimulatedClock?, real: Date, rate: TimeRate) -> Date {
        clock?.now(real: real, rate: rate) ?? real
    }
}
