/// Standard Base64 (RFC 4648 §4) with padding, and a strict decoder.
///
/// Foundation's decoder accepts non-canonical input (non-zero leftover bits, and with options
/// stray characters); PEM and X.509 parsing want one accepted spelling per byte string.
public enum Base64 {
    /// Encodes `bytes` with the standard alphabet and `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        encode(Array(bytes), alphabet: standardAlphabet, padded: true)
    }

    /// Decodes padded standard Base64, rejecting whitespace, bad characters and non-canonical text.
    /// - Throws: `CryptoError.invalidBase64Character`, `.invalidBase64Length` or `.nonCanonicalBase64`.
    public static func decode(_ text: some StringProtocol) throws(CryptoError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 4 == 0 else { throw .invalidBase64Length(utf8.count) }
        var padding = 0
        while padding < 2, padding < utf8.count, utf8[utf8.count - 1 - padding] == UInt8(ascii: "=") {
            padding += 1
        }
        let body = utf8[0..<(utf8.count - padding)]
        // A third '=' or a full padding block means a length no encoder produces.
        if body.count % 4 == 1 { throw .invalidBase64Length(utf8.count) }
        return try decodeUnpadded(body, table: standardDecodeTable)
    }

    static let standardAlphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let standardDecodeTable = decodeTable(for: standardAlphabet)
    static let urlDecodeTable = decodeTable(for: urlAlphabet)

    private static func decodeTable(for alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }

    static func encode(_ bytes: [UInt8], alphabet: [UInt8], padded: Bool) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            output.append(alphabet[Int(group & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let group = UInt32(bytes[index]) << 16
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            if padded { output.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")]) }
        } else if rest == 2 {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            if padded { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded characters; `text.count % 4 == 1` is the one impossible length.
    static func decodeUnpadded(_ text: ArraySlice<UInt8>, table: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard text.count % 4 != 1 else { throw .invalidBase64Length(text.count) }
        var output = [UInt8]()
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (offset, character) in text.enumerated() {
            let value = table[Int(character)]
            guard value != 0xFF else { throw .invalidBase64Character(offset: offset) }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero, or two different texts would decode to the same bytes.
        guard accumulator == 0 else { throw .nonCanonicalBase64 }
        return output
    }
}
