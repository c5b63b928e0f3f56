import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Date` header's IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7),
/// formatted once a second at most.
public struct HTTPDate {
    private var second: time_t = -1
    private var text = ""

    mutating func now() -> String {
        let seconds = time(nil)
        guard seconds != second else { return text }
        text = Self.string(seconds)
        second = seconds
        return text
    }

    /// `date` as a `Date` header spells it: a server whose clock is not the machine's (a
    /// simulated one) sets the header itself, and the connection keeps it.
    public static func string(_ date: Date) -> String {
        string(time_t(date.timeIntervalSince1970.rounded(.down)))
    }

    private static func string(_ value: time_t) -> String {
        var seconds = value
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
