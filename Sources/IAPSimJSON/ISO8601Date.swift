import Foundation

/// Dates as iapsim writes them everywhere: ISO 8601 in UTC, whole seconds
/// (`2027-01-01T00:00:00Z`), on the proleptic Gregorian calendar (`GregorianDate`), without
/// a formatter, which would load ICU on every start.
///
/// The format has four-digit years, so the dates it holds run from `earliest`
/// (0001-01-01T00:00:00Z) to `latest` (9999-12-31T23:59:59Z): a state file is never written
/// with a date outside them, and a date outside them in a file is an error.
public enum ISO8601Date {
    /// 0001-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: -62_135_596_800)
    /// 9999-12-31T23:59:59Z.
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799)

    /// Whether `date` is one the format holds (a fraction past `latest` included: it is
    /// written in whole seconds).
    public static func isRepresentable(_ date: Date) -> Bool {
        date >= earliest && date.timeIntervalSince1970 < latest.timeIntervalSince1970 + 1
    }

    /// `date` brought within `earliest...latest`.
    public static func clamped(_ date: Date) -> Date {
        min(max(date, earliest), latest)
    }

    /// `2027-01-01T00:00:00Z`. A date outside the format's range is written as the nearest
    /// bound: callers check the range first (`isRepresentable`), this keeps a file readable.
    public static func string(_ date: Date) -> String {
        let date = isRepresentable(date) ? date : clamped(date)
        guard let parts = GregorianDate(date), (0...9999).contains(parts.year) else { return expandedString(date) }
        // Digit by digit into the string's own storage: listings format two dates a row.
        let seconds = parts.secondOfDay
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int, width: Int, at index: Int, then separator: UInt8) {
                var rest = value
                for place in (0..<width).reversed() {
                    buffer[index + place] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                buffer[index + width] = separator
            }
            put(parts.year, width: 4, at: 0, then: 0x2D)
            put(parts.month, width: 2, at: 5, then: 0x2D)
            put(parts.day, width: 2, at: 8, then: UInt8(ascii: "T"))
            put(seconds / 3600, width: 2, at: 11, then: 0x3A)
            put(seconds / 60 % 60, width: 2, at: 14, then: 0x3A)
            put(seconds % 60, width: 2, at: 17, then: UInt8(ascii: "Z"))
            return 20
        }
    }

    /// The date `string(date)` reads back as: brought within the range, in whole seconds.
    public static func stored(_ date: Date) -> Date {
        Date(timeIntervalSince1970: clamped(date).timeIntervalSince1970.rounded(.down))
    }

    /// Like `string`, for messages about dates outside the range: ISO 8601's expanded years
    /// (`+10000-01-01T00:00:00Z`, `-0001-12-31T00:00:00Z`).
    public static func expandedString(_ date: Date) -> String {
        guard let parts = GregorianDate(date) else { return date.timeIntervalSince1970 > 0 ? "+∞" : "-∞" }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let digits = String(abs(parts.year))
        let year =
            (parts.year < 0 ? "-" : parts.year > 9999 ? "+" : "")
            + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        let seconds = parts.secondOfDay
        return "\(year)-\(two(parts.month))-\(two(parts.day))T"
            + "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ`, also with fractional seconds or a `±HH:MM` offset. The
    /// date must exist (no February 30th, no hour 24, no second 60). Years 0000 to 9999 parse;
    /// with an offset the result can fall just outside `earliest...latest`, so callers that
    /// store it check `isRepresentable`.
    public static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == UInt8(ascii: "T"), bytes[13] == 0x3A,
            bytes[16] == 0x3A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), hour < 24, minute < 60, second < 60
        else { return nil }
        let civil = GregorianDate(year: year, month: month, day: day, secondOfDay: hour * 3600 + minute * 60 + second)
        guard civil.isValid, let seconds = civil.secondsSince1970 else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "Z") where index == bytes.count - 1:
            break
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard bytes.count == index + 6, bytes[index + 3] == 0x3A, let hours = number(index + 1..<index + 3),
                let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60
            else { return nil }
            offset = (bytes[index] == UInt8(ascii: "+") ? 1 : -1) * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }
}
