import Foundation

/// `SKTestSession.TimeRate`: how fast subscriptions renew, with Apple's raw values (the
/// numbers a `.storekit` file stores as `_timeRate`).
///
/// Two families: rates that speed the whole clock up (one second is one day, a monthly
/// renewal every 30 seconds, …), and fixed rates under which a subscription of any length
/// renews every N seconds of real time, with a grace period of N and a billing retry period
/// of 2N (Apple's tables for each case).
public enum TimeRate: Int, Sendable, CaseIterable {
    case realTime = 0
    case oneHourIsOneDay = 1
    case thirtyMinutesIsOneDay = 2
    case fiveMinutesIsOneDay = 3
    case oneMinuteIsOneDay = 4
    case thirtySecondsIsOneDay = 5
    case oneSecondIsOneDay = 6
    case monthlyRenewalEveryHour = 10
    case monthlyRenewalEveryThirtyMinutes = 11
    case monthlyRenewalEveryFifteenMinutes = 12
    case monthlyRenewalEveryFiveMinutes = 13
    case monthlyRenewalEveryThirtySeconds = 15
    case oneRenewalEveryFifteenMinutes = 1000
    case oneRenewalEveryFiveMinutes = 1001
    case oneRenewalEveryMinute = 1002
    case oneRenewalEveryThirtySeconds = 1003
    case oneRenewalEveryTenSeconds = 1004
    case oneRenewalEveryTwoSeconds = 1005

    /// `realTime`, `monthlyRenewalEveryThirtySeconds`: the Swift case name. Spelled out, not
    /// `String(describing:)`, whose reflection costs a noticeable part of a start-up.
    public var name: String {
        switch self {
        case .realTime: "realTime"
        case .oneHourIsOneDay: "oneHourIsOneDay"
        case .thirtyMinutesIsOneDay: "thirtyMinutesIsOneDay"
        case .fiveMinutesIsOneDay: "fiveMinutesIsOneDay"
        case .oneMinuteIsOneDay: "oneMinuteIsOneDay"
        case .thirtySecondsIsOneDay: "thirtySecondsIsOneDay"
        case .oneSecondIsOneDay: "oneSecondIsOneDay"
        case .monthlyRenewalEveryHour: "monthlyRenewalEveryHour"
        case .monthlyRenewalEveryThirtyMinutes: "monthlyRenewalEveryThirtyMinutes"
        case .monthlyRenewalEveryFifteenMinutes: "monthlyRenewalEveryFifteenMinutes"
        case .monthlyRenewalEveryFiveMinutes: "monthlyRenewalEveryFiveMinutes"
        case .monthlyRenewalEveryThirtySeconds: "monthlyRenewalEveryThirtySeconds"
        case .oneRenewalEveryFifteenMinutes: "oneRenewalEveryFifteenMinutes"
        case .oneRenewalEveryFiveMinutes: "oneRenewalEveryFiveMinutes"
        case .oneRenewalEveryMinute: "oneRenewalEveryMinute"
        case .oneRenewalEveryThirtySeconds: "oneRenewalEveryThirtySeconds"
        case .oneRenewalEveryTenSeconds: "oneRenewalEveryTenSeconds"
        case .oneRenewalEveryTwoSeconds: "oneRenewalEveryTwoSeconds"
        }
    }

    /// A case by name (any case) or raw value.
    public static func named(_ text: String) -> TimeRate? {
        if let raw = Int(text) { return TimeRate(rawValue: raw) }
        let wanted = text.lowercased()
        return allCases.first { $0.name.lowercased() == wanted }
    }

    /// Simulated seconds per real second: 86,400 when one second is one day; 1 for real time
    /// and for the fixed rates, whose clock runs in real time.
    public var clockSpeed: Double {
        let day = 86_400.0
        let month = 30 * day
        switch self {
        case .realTime: return 1
        case .oneHourIsOneDay: return day / 3_600
        case .thirtyMinutesIsOneDay: return day / 1_800
        case .fiveMinutesIsOneDay: return day / 300
        case .oneMinuteIsOneDay: return day / 60
        case .thirtySecondsIsOneDay: return day / 30
        case .oneSecondIsOneDay: return day
        case .monthlyRenewalEveryHour: return month / 3_600
        case .monthlyRenewalEveryThirtyMinutes: return month / 1_800
        case .monthlyRenewalEveryFifteenMinutes: return month / 900
        case .monthlyRenewalEveryFiveMinutes: return month / 300
        case .monthlyRenewalEveryThirtySeconds: return month / 30
        default: return 1
        }
    }

    /// For the fixed rates: the real seconds between renewals, whatever the period.
    public var fixedRenewalInterval: TimeInterval? {
        switch self {
        case .oneRenewalEveryFifteenMinutes: 900
        case .oneRenewalEveryFiveMinutes: 300
        case .oneRenewalEveryMinute: 60
        case .oneRenewalEveryThirtySeconds: 30
        case .oneRenewalEveryTenSeconds: 10
        case .oneRenewalEveryTwoSeconds: 2
        default: nil
        }
    }

    /// When `count` periods that start at `date` end; never past `ISO8601Date.latest`.
    public func end(of period: SubscriptionPeriod, from date: Date, count: Int = 1) -> Date {
        if let interval = fixedRenewalInterval {
            return ISO8601Date.clamped(date + interval * Double(min(max(count, 1), 1_000_000)))
        }
        return period.advance(date, times: count)
    }

    /// The billing grace period: 6 days for weekly subscriptions and 16 days for others in
    /// calendar time; N seconds under a fixed rate.
    public func gracePeriod(for period: SubscriptionPeriod) -> TimeInterval {
        if let interval = fixedRenewalInterval { return interval }
        let weekly = period.unit == .week || (period.unit == .day && period.value <= 7)
        return (weekly ? 6 : 16) * 86_400
    }

    /// The billing retry period: 60 days in calendar time; 2N seconds under a fixed rate.
    public var billingRetryPeriod: TimeInterval {
        fixedRenewalInterval.map { 2 * $0 } ?? 60 * 86_400
    }
}
