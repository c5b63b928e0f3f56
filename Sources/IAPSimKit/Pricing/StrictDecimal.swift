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

    /// The canonical plain-decimal text (`"0.99"`), independent of any locale: the text
    /// `description` writes (`.` whatever the locale, as `NSDecimalString` does for
    /// en_US_POSIX), spelled from the value's digits.
    ///
    /// `description` costs about 11,000 instructions a call, and its first call in a process a
    /// quarter of a million (the runtime resolving the generic types it uses): most of a
    /// listing's time over many rows, and a twentieth of a `buy`. The digits come from the
    /// value's fields (`PlainDecimalParts`); a value whose fields do not agree with the
    /// exponent and sign it reports is spelled by `description` instead. Tests compare the two
    /// over 100,000 random values.
    public var plainString: String {
        if isNaN { return "NaN" }
        guard let parts = PlainDecimalParts(self) else { return description }
        return parts.text
    }
}

/// Made once: creating a `Locale` costs more than parsing a price (only prices of 20 digits
/// and more are parsed with it).
private let posix = Locale(identifier: "en_US_POSIX")

/// A `Decimal`'s sign, exponent and significand, read from its fields, and written as
/// `Decimal.description` writes them, with no allocation but the string's.
private struct PlainDecimalParts {
    typealias Words = (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16)
    var negative: Bool
    var exponent: Int
    /// How many of `words` hold the significand, least significant first.
    var length: Int
    var words: Words

    init?(_ value: Decimal) {
        #if canImport(Darwin)
            // Apple's Foundation declares `NSDecimal`'s fields.
            (exponent, length, negative, words) = (
                Int(value._exponent), Int(value._length), value._isNegative != 0, value._mantissa
            )
        #else
            // swift-foundation keeps them private: the exponent in the first byte, the length in
            // the second's high four bits and the sign in its bit 3, then the eight words.
            guard MemoryLayout<Decimal>.size == 20 else { return nil }
            (exponent, length, negative, words) = withUnsafeBytes(of: value) { raw in
                (
                    Int(Int8(bitPattern: raw[0])), Int(raw[1] >> 4), raw[1] & 0x08 != 0,
                    raw.loadUnaligned(fromByteOffset: 4, as: Words.self)
                )
            }
        #endif
        guard length <= 8, exponent == value.exponent, negative == (value.sign == .minus) else { return nil }
    }

    /// The digits, zeros for a positive exponent, a point and leading zeros for a negative one.
    var text: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { digits in
            let count = self.digits(into: digits)
            if count == 0 { return "0" }
            let fraction = max(0, -exponent)
            let capacity = count + max(0, exponent) + fraction + 3
            return String(unsafeUninitializedCapacity: capacity) { text in
                var end = 0
                func put(_ byte: UInt8) {
                    text[end] = byte
                    end += 1
                }
                if negative { put(UInt8(ascii: "-")) }
                if count > fraction {
                    for index in stride(from: count - 1, through: fraction, by: -1) { put(digits[index]) }
                } else {
                    put(UInt8(ascii: "0"))
                }
                for _ in 0..<max(0, exponent) { put(UInt8(ascii: "0")) }
                if fraction > 0 {
                    put(UInt8(ascii: "."))
                    for _ in count..<max(count, fraction) { put(UInt8(ascii: "0")) }
                    for index in stride(from: min(count, fraction) - 1, through: 0, by: -1) { put(digits[index]) }
                }
                return end
            }
        }
    }

    /// The significand's decimal digits, least significant first (at most 39): the words
    /// divided by ten in turn.
    private func digits(into digits: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var words = self.words
        return withUnsafeMutableBytes(of: &words) { raw in
            let word = raw.bindMemory(to: UInt16.self)
            var top = min(length, word.count)
            while top > 0, word[top - 1] == 0 { top -= 1 }
            var count = 0
            while top > 0, count < digits.count {
                var remainder: UInt32 = 0
                for index in stride(from: top - 1, through: 0, by: -1) {
                    let value = remainder << 16 | UInt32(word[index])
                    word[index] = UInt16(value / 10)
                    remainder = value % 10
                }
                digits[count] = UInt8(remainder) + UInt8(ascii: "0")
                count += 1
                while top > 0, word[top - 1] == 0 { top -= 1 }
            }
            return count
        }
    }
}
