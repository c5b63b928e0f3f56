import Foundation

/// A UTC date and time in whole seconds on the proleptic Gregorian calendar, which ISO 8601
/// uses for every year, with the arithmetic iapsim needs.
///
/// Not Foundation's Gregorian `Calendar`, which switches to the Julian calendar before
/// 1582-10-15 (0001-01-01T00:00:00Z comes back as 0001-01-03), nor `gmtime_r`/`timegm`, which
/// depend on the C library and `time_t`: days are counted with Howard Hinnant's
/// `days_from_civil`/`civil_from_days` algorithms, exact for any year. Every operation checks
/// its arithmetic, so no input traps.
public struct GregorianDate: Equatable, Sendable {
    /// The year, astronomical numbering (0 is 1 BC); any `Int`.
    public var year: Int
    /// The month, 1–12 in a valid date.
    public var month: Int
    /// The day of the month, from 1.
    public var day: Int
    /// Seconds since midnight, 0..<86,400.
    public var secondOfDay: Int

    /// The date from its fields, unchecked: `isValid` says whether they name a real one.
    public init(year: Int, month: Int, day: Int, secondOfDay: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.secondOfDay = secondOfDay
    }

    /// Whether `year` has a February 29th.
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days in `month` (1–12) of `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whether the fields name a real date and time (2030-02-30 does not).
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year)
            && (0..<86_400).contains(secondOfDay)
    }

    /// The date `seconds` after 1970-01-01T00:00:00Z (a fraction is dropped: the second it falls in).
    /// nil when `seconds` is not finite or beyond ±10¹⁵ (some 30 million years).
    public init?(secondsSince1970 seconds: Double) {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        let whole = Int(seconds.rounded(.down))
        let days = Self.floorDivide(whole, 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        self.init(year: year, month: month, day: day, secondOfDay: whole - days * 86_400)
    }

    /// The second `date` falls in; nil when it is not finite or too far off (see above).
    public init?(_ date: Date) { self.init(secondsSince1970: date.timeIntervalSince1970) }

    /// Seconds since 1970-01-01T00:00:00Z; nil for a year beyond ±10¹⁰.
    public var secondsSince1970: Int? {
        guard abs(year) < 10_000_000_000, (1...12).contains(month), (1...31).contains(day) else { return nil }
        return Self.days(year: year, month: month, day: day) * 86_400 + secondOfDay
    }

    /// The same instant as a `Date`; nil when `secondsSince1970` is.
    public var date: Date? { secondsSince1970.map { Date(timeIntervalSince1970: Double($0)) } }

    /// This date plus calendar components, as Foundation's `Calendar.date(byAdding:to:)` adds
    /// them: years and months first, the day clamped to the end of a shorter month (Jan 31 plus
    /// one month is Feb 28 or 29), then days, then seconds. nil if the arithmetic overflows.
    public func adding(years: Int = 0, months: Int = 0, days: Int = 0, seconds: Int = 0) -> GregorianDate? {
        guard abs(year) < 1 << 40 else { return nil }
        let (yearMonths, o1) = years.multipliedReportingOverflow(by: 12)
        let (allMonths, o2) = yearMonths.addingReportingOverflow(months)
        let (monthIndex, o3) = (year * 12 + month - 1).addingReportingOverflow(allMonths)
        guard !o1, !o2, !o3 else { return nil }
        var result = GregorianDate(
            year: Self.floorDivide(monthIndex, 12), month: 0, day: 0, secondOfDay: secondOfDay)
        result.month = monthIndex - result.year * 12 + 1
        result.day = min(day, Self.daysIn(month: result.month, year: result.year))
        guard let start = result.secondsSince1970 else { return nil }
        let (dayShift, o4) = days.multipliedReportingOverflow(by: 86_400)
        let (shifted, o5) = start.addingReportingOverflow(dayShift)
        let (total, o6) = shifted.addingReportingOverflow(seconds)
        guard !o4, !o5, !o6 else { return nil }
        return GregorianDate(secondsSince1970: Double(total))
    }

    /// `value / divisor` rounded down, for a positive `divisor`.
    static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        value >= 0 ? value / divisor : -((-(value + 1)) / divisor) - 1
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (days_from_civil).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (civil_from_days).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
