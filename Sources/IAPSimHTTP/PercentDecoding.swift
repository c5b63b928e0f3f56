/// `%XX` decoding of URL paths and query components (RFC 3986 §2.1).
enum PercentDecoding {
    /// The bytes with every `%XX` replaced by its byte (and `+` by a space when `plusAsSpace`,
    /// as in form-encoded queries); nil when a `%` is not followed by two hexadecimal digits.
    static func decode(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard bytes.endIndex - index >= 3, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 3
                continue
            }
            decoded.append(plusAsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
            index += 1
        }
        return decoded
    }

    /// The bytes as a string when they are valid UTF-8, nil otherwise (never U+FFFD).
    static func string(_ bytes: [UInt8]) -> String? {
        let string = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces each invalid sequence with U+FFFD, which changes the bytes.
        return string.utf8.elementsEqual(bytes) ? string : nil
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
