import Foundation
import IAPSimJSON

/// A subscription or offer period as a `.storekit` file writes it (`P1W`, `P1M`, `P3D`, `P1Y`),
/// the ISO 8601 subset that `Product.SubscriptionPeriod` models.
public struct SubscriptionPeriod: Sendable, Equatable, CustomStringConvertible {
    public enum Unit: String, Sendable, CaseIterable {
        case day = "D"
        case week = "W"
        case month = "M"
        case year = "Y"
    }

    public var value: Int
    public var unit: Unit

    public init(value: Int, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// Parses `P<n><D|W|M|Y>`; nil for anything else.
    public init?(iso8601 text: String) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3, scalars.first == "P",
            let unit = Unit(rawValue: String(scalars[scalars.count - 1])),
            let value = Int(String(String.UnicodeScalarView(scalars[1..<(scalars.count - 1)]))),
            value > 0, scalars[1] != "+"
        else { return nil }
        self.init(value: value, unit: unit)
    }

    /// Whether the period is at most a year long (366 days, 52 weeks, 12 months, 1 year): App
    /// Store Connect offers none longer, for a subscription or an offer. A catalog's longer
    /// period is refused when read, so no date or text works with one such as
    /// P9223372036854775807D ("every 9223372036854775807 days").
    public var isAtMostAYear: Bool {
        switch unit {
        case .day: value <= 366
        case .week: value <= 52
        case .month: value <= 12
        case .year: value <= 1
        }
    }

    /// `P1M`.
    public var iso8601: String { "P\(value)\(unit.rawValue)" }
    public var description: String { iso8601 }

    /// "1 month", "3 months", "1 week".
    public var localizedDescription: String {
        let noun: String
        switch unit {
        case .day: noun = "day"
        case .week: noun = "week"
        case .month: noun = "month"
        case .year: noun = "year"
        }
        return "\(value) \(noun)\(value == 1 ? "" : "s")"
    }

    /// `count` of these periods as one (an offer's whole span: 3 × P1M is P3M); at least one.
    public func times(_ count: Int) -> SubscriptionPeriod {
        let product = value.multipliedReportingOverflow(by: max(count, 1))
        return SubscriptionPeriod(value: product.overflow ? Int.max : product.partialValue, unit: unit)
    }

    /// The date `count` periods after `date`, on the proleptic Gregorian calendar in UTC, as
    /// App Store renewals fall on the same day of the month (clamped to the month's end). A
    /// date past `ISO8601Date.latest` comes back as it: the state holds no later date.
    public func advance(_ date: Date, times count: Int = 1) -> Date {
        guard let start = GregorianDate(ISO8601Date.clamped(date)) else { return ISO8601Date.clamped(date) }
        let (units, overflow) = value.multipliedReportingOverflow(by: max(count, 1))
        var end: GregorianDate?
        if !overflow {
            switch unit {
            case .day: end = start.adding(days: units)
            case .week:
                let (days, overflow) = units.multipliedReportingOverflow(by: 7)
                end = overflow ? nil : start.adding(days: days)
            case .month: end = start.adding(months: units)
            case .year: end = start.adding(years: units)
            }
        }
        return end?.date.map(ISO8601Date.clamped) ?? ISO8601Date.latest
    }
}
