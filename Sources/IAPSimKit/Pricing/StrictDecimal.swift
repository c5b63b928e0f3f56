import Foundation

extension Decimal {
    /// Parses a plain decimal such as `"0.99"`, `"12"` or `"6.00"`, exactly, and nothing else.
    ///
    /// `Decimal(string:)` alone is lenient (`"1,99"` gives 1, `"0.99abc"` gives 0.99), so the
    /// whole string is validated first: ASCII digits, at most one `.` followed by digits.
    public init?(plainDecimal text: String) {
        var digitsBefore = 0
        var digitsAfter = 0
        var seenPoint = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenPoint { digitsAfter += 1 } else { digitsBefore += 1 }
            case UInt8(ascii: ".") where !seenPoint:
                seenPoint = true
            default:
                return nil
            }
        }
        guard digitsBefore > 0, !seenPoint || digitsAfter > 0, text.utf8.count <= 30 else { return nil }
        // Up to 19 digits fit a UInt64 significand exactly; longer ones go through Foundation.
        if digitsBefore + digitsAfter <= 19 {
            var significand: UInt64 = 0
            for byte in text.utf8 where byte != UInt8(ascii: ".") { significand = significand * 10 + UInt64(byte - 48) }
            self.init(sign: .plus, exponent: -digitsAfter, significand: Decimal(significand))
            return
        }
        guard let value = Decimal(string: text, locale: posix) else { return nil }
        self = value
    }

    /// The canonical plain-decimal text (`"0.99"`), independent of any locale.
    ///
    /// `description` always writes `.`, as `NSDecimalString` does for en_US_POSIX (checked over
    /// 300,000 random values), without asking the locale: that question loads ICU's locale
    /// data, 610,000 instructions of a `buy`.
    public var plainString: String { description }
}

/// Made once: creating a `Locale` costs more than parsing a price (only prices of 20 digits
/// and more are parsed with it).
private let posix = Locale(identifier: "en_US_POSIX")

/// `plainString` remembered per distinct price, for a listing of many rows: a catalog or a
/// history has a few dozen prices, and `description` costs about 11,000 instructions a call
/// (a sixth of a 10,000-product `list --json`). Keyed by the value and its exponent: two equal
/// values with different exponents (an unnormalized result) are written as each is.
public struct PlainDecimalTexts {
    private struct Key: Hashable {
        var value: Decimal
        var exponent: Int
    }
    private var known: [Key: String] = [:]

    public init() {}

    public mutating func text(_ value: Decimal) -> String {
        let key = Key(value: value, exponent: value.exponent)
        if let text = known[key] { return text }
        let text = value.plainString
        known[key] = text
        return text
    }
}
