import Foundation
import IAPSimJSON

/// `SKTestSession.TimeRate`: how fast subscriptions renew, with Apple's raw values (the
/// numbers a `.storekit` file stores as `_timeRate`).
///
/// Three families, as Apple's page for each case describes it:
/// - the deprecated `…IsOneDay` rates speed the whole clock up (one second is one day);
/// - the `monthlyRenewalEvery…` rates keep the clock on real time and give each subscription
///   period its own real duration from Apple's table for the case (at
///   `monthlyRenewalEveryThirtySeconds`: a week lasts 10 s, a month 30 s, a year 6 min), with
///   the grace and billing retry periods of the same table;
/// - the `oneRenewalEvery…` rates keep real time too and renew a subscription of any length
///   every N seconds, with a grace period of N and a billing retry period of 2N.
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
    /// and for the rates whose dates stay on the wall clock (monthly tables and fixed rates).
    public var clockSpeed: Double {
        let day = 86_400.0
        switch self {
        case .oneHourIsOneDay: return day / 3_600
        case .thirtyMinutesIsOneDay: return day / 1_800
        case .fiveMinutesIsOneDay: return day / 300
        case .oneMinuteIsOneDay: return day / 60
        case .thirtySecondsIsOneDay: return day / 30
        case .oneSecondIsOneDay: return day
        default: return 1
        }
    }

    /// Apple's table for a `monthlyRenewalEvery…` rate: the real seconds each subscription
    /// period lasts, and the billing grace and retry periods ("SKTestSession.TimeRate.<case>").
    public struct RenewalTable: Sendable, Equatable {
        public var weekly, monthly, bimonthly, quarterly, semiannual, annual: TimeInterval
        public var weeklyGrace, grace, billingRetry: TimeInterval

        /// The real duration of `period`. Apple's tables list weekly, one-, two-, three- and
        /// six-month and annual periods; other lengths are multiples of those, and days
        /// (offers of 3 days, say) a seventh of the weekly time each.
        func duration(of period: SubscriptionPeriod) -> TimeInterval {
            let value = Double(max(period.value, 1))
            switch period.unit {
            case .day: return period.value == 7 ? weekly : weekly / 7 * value
            case .week: return weekly * value
            case .year: return annual * value
            case .month:
                switch period.value {
                case 1: return monthly
                case 2: return bimonthly
                case 3: return quarterly
                case 6: return semiannual
                case 12: return annual
                default: return monthly * value
                }
            }
        }
    }

    public var renewalTable: RenewalTable? {
        let minute = 60.0
        let hour = 3_600.0
        switch self {
        case .monthlyRenewalEveryHour:
            return RenewalTable(
                weekly: 15 * minute, monthly: hour, bimonthly: 2 * hour, quarterly: 3 * hour, semiannual: 6 * hour,
                annual: 12 * hour, weeklyGrace: 12 * minute + 51, grace: 30 * minute, billingRetry: 2 * hour)
        case .monthlyRenewalEveryThirtyMinutes:
            return RenewalTable(
                weekly: 10 * minute, monthly: 30 * minute, bimonthly: hour, quarterly: 90 * minute,
                semiannual: 3 * hour,
                annual: 6 * hour, weeklyGrace: 8 * minute + 34, grace: 15 * minute, billingRetry: hour)
        case .monthlyRenewalEveryFifteenMinutes:
            return RenewalTable(
                weekly: 5 * minute, monthly: 15 * minute, bimonthly: 30 * minute, quarterly: 45 * minute,
                semiannual: 90 * minute, annual: 3 * hour, weeklyGrace: 4 * minute + 17, grace: 7 * minute + 30,
                billingRetry: 30 * minute)
        case .monthlyRenewalEveryFiveMinutes:
            return RenewalTable(
                weekly: 3 * minute, monthly: 5 * minute, bimonthly: 10 * minute, quarterly: 15 * minute,
                semiannual: 30 * minute, annual: hour, weeklyGrace: 2 * minute + 34, grace: 2 * minute + 30,
                billingRetry: 10 * minute)
        case .monthlyRenewalEveryThirtySeconds:
            return RenewalTable(
                weekly: 10, monthly: 30, bimonthly: minute, quarterly: 90, semiannual: 3 * minute, annual: 6 * minute,
                weeklyGrace: 9, grace: 15, billingRetry: minute)
        default:
            return nil
        }
    }

    /// The real seconds one `period` lasts under a table or fixed rate; nil where periods
    /// follow the calendar (real time, and the sped-up clocks).
    public func renewalDuration(of period: SubscriptionPeriod) -> TimeInterval? {
        fixedRenewalInterval ?? renewalTable?.duration(of: period)
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
        if let duration = renewalDuration(of: period) {
            return ISO8601Date.clamped(date + duration * Double(min(max(count, 1), 1_000_000)))
        }
        return period.advance(date, times: count)
    }

    /// Whether `period` counts as weekly for the grace period (Apple gives weekly
    /// subscriptions a shorter one).
    private static func isWeekly(_ period: SubscriptionPeriod) -> Bool {
        period.unit == .week || (period.unit == .day && period.value <= 7)
    }

    /// The billing grace period: 6 days for weekly subscriptions and 16 days for others in
    /// calendar time; the table's under a monthly-renewal rate; N seconds under a fixed rate.
    public func gracePeriod(for period: SubscriptionPeriod) -> TimeInterval {
        if let interval = fixedRenewalInterval { return interval }
        if let table = renewalTable { return Self.isWeekly(period) ? table.weeklyGrace : table.grace }
        return (Self.isWeekly(period) ? 6 : 16) * 86_400
    }

    /// The billing retry period: 60 days in calendar time; the table's under a
    /// monthly-renewal rate; 2N seconds under a fixed rate.
    public var billingRetryPeriod: TimeInterval {
        fixedRenewalInterval.map { 2 * $0 } ?? renewalTable?.billingRetry ?? 60 * 86_400
    }

    /// The lapse of paid service that starts a subscription's `recentSubscriptionStartDate`
    /// again: 60 days in calendar time (Apple, "recentSubscriptionStartDate"), scaled as the
    /// billing retry period's 60 days are, so a fast rate reaches it as quickly.
    public var subscriptionLapse: TimeInterval { billingRetryPeriod }
}
