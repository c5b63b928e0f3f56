import Foundation
import IAPSimJSON

/// UTCTime and GeneralizedTime as RFC 5280 §4.1.2.5 profiles them: UTC, whole seconds,
/// "YYMMDDHHMMSSZ" for 1950–2049 and "YYYYMMDDHHMMSSZ" otherwise.
///
/// Calendar arithmetic is `CivilCalendar`'s, on seconds since 1970, so results never depend
/// on Foundation's calendar or time zone.
public enum ASN1Time {
    /// A broken-down UTC time.
    struct Components: Equatable {
        var year: Int64
        var month: Int64
        var day: Int64
        var hour: Int64
        var minute: Int64
        var second: Int64
    }

    /// Earliest and latest instants GeneralizedTime's four-digit year can carry.
    static let earliestSeconds: Int64 = -62_167_219_200  // 0000-01-01T00:00:00Z
    static let latestSeconds: Int64 = 253_402_300_799  // 9999-12-31T23:59:59Z

    /// The complete DER element (tag, length, contents) for `date` under RFC 5280's choice
    /// of UTCTime or GeneralizedTime.
    /// - Throws: `CryptoError.unencodableValue` for dates outside years 0–9999.
    public static func encodeTime(_ date: Date) throws(CryptoError) -> [UInt8] {
        try encode(date, allowingUTCTime: true)
    }

    /// The complete GeneralizedTime element for `date`, whatever its year: OCSP (RFC 6960
    /// §4.2.1) dates everything this way, never as UTCTime.
    /// - Throws: `CryptoError.unencodableValue` for dates outside years 0–9999.
    public static func encodeGeneralizedTime(_ date: Date) throws(CryptoError) -> [UInt8] {
        try encode(date, allowingUTCTime: false)
    }

    private static func encode(_ date: Date, allowingUTCTime: Bool) throws(CryptoError) -> [UInt8] {
        guard let seconds = wholeSeconds(date) else {
            throw .unencodableValue("the date \(date) is outside years 0–9999")
        }
        let parts = components(fromSeconds: seconds)
        var text: String
        let tag: UInt8
        if allowingUTCTime, parts.year >= 1950 && parts.year <= 2049 {
            tag = DERTag.utcTime
            text = twoDigits(parts.year % 100)
        } else {
            tag = DERTag.generalizedTime
            text = twoDigits(parts.year / 100) + twoDigits(parts.year % 100)
        }
        text += twoDigits(parts.month) + twoDigits(parts.day)
        text += twoDigits(parts.hour) + twoDigits(parts.minute) + twoDigits(parts.second) + "Z"
        var writer = DERWriter()
        writer.writeElement(tag: tag, contents: Array(text.utf8))
        return writer.bytes
    }

    /// Parses the contents octets of a UTCTime (`tag` 0x17) or GeneralizedTime (0x18).
    ///
    /// Only RFC 5280's forms are accepted: "Z" suffix, seconds present, no fractions.
    static func parse(_ contents: ArraySlice<UInt8>, tag: UInt8) throws(CryptoError) -> Date {
        let digits = Array(contents)
        let yearDigits = tag == DERTag.utcTime ? 2 : 4
        guard digits.count == yearDigits + 11, digits.last == UInt8(ascii: "Z") else {
            throw .derInvalidValue("a time is not in the form \(yearDigits == 2 ? "YYMMDDHHMMSSZ" : "YYYYMMDDHHMMSSZ")")
        }
        var values = [Int64]()
        for byte in digits.dropLast() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw .derInvalidValue("a time contains a non-digit")
            }
            values.append(Int64(byte - UInt8(ascii: "0")))
        }
        func number(_ start: Int, _ length: Int) -> Int64 {
            values[start..<(start + length)].reduce(0) { $0 * 10 + $1 }
        }
        var year = number(0, yearDigits)
        if yearDigits == 2 { year += year >= 50 ? 1900 : 2000 }
        let parts = Components(
            year: year, month: number(yearDigits, 2), day: number(yearDigits + 2, 2),
            hour: number(yearDigits + 4, 2), minute: number(yearDigits + 6, 2), second: number(yearDigits + 8, 2))
        guard parts.month >= 1, parts.month <= 12,
            parts.day >= 1, parts.day <= Int64(GregorianDate.daysIn(month: Int(parts.month), year: Int(parts.year))),
            parts.hour <= 23, parts.minute <= 59, parts.second <= 59
        else { throw .derInvalidValue("a time names an impossible date or time") }
        return Date(timeIntervalSince1970: TimeInterval(seconds(from: parts)))
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static func wholeSeconds(_ date: Date) -> Int64? {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard interval >= Double(earliestSeconds), interval <= Double(latestSeconds) else { return nil }
        return Int64(interval)
    }

    /// Civil date from seconds since 1970, for years 0–9999 (the proleptic Gregorian calendar
    /// of `GregorianDate`, which the state's dates use too).
    static func components(fromSeconds seconds: Int64) -> Components {
        // Years 0–9999 are far inside what GregorianDate counts: it cannot decline.
        let civil = GregorianDate(secondsSince1970: Double(seconds)) ?? GregorianDate(year: 1970, month: 1, day: 1)
        let secondOfDay = Int64(civil.secondOfDay)
        return Components(
            year: Int64(civil.year), month: Int64(civil.month), day: Int64(civil.day),
            hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60, second: secondOfDay % 60)
    }

    /// Seconds since 1970 from a civil date.
    static func seconds(from parts: Components) -> Int64 {
        let midnight = GregorianDate(year: Int(parts.year), month: Int(parts.month), day: Int(parts.day))
        let days = Int64(midnight.secondsSince1970 ?? 0) / 86_400
        return days * 86_400 + parts.hour * 3600 + parts.minute * 60 + parts.second
    }
}
