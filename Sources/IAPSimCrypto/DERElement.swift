import Foundation

/// One DER element as read: its tag, its contents and its complete encoding, plus
/// decoders for the contents of each primitive type.
///
/// The decoders take the tag as given, so they also serve IMPLICIT-tagged fields.
public struct DERElement: Sendable {
    /// The identifier octet.
    public let tag: UInt8
    /// The contents octets (no tag, no length).
    public let contents: ArraySlice<UInt8>
    /// The whole element: tag, length and contents.
    public let encoded: ArraySlice<UInt8>
    /// Where the element starts, counted in the top-level input.
    public let offset: Int
    /// How many constructed elements enclose this one.
    let depth: Int
    let maximumDepth: Int

    /// Whether the element holds other elements.
    public var isConstructed: Bool { tag & DERTag.constructedBit != 0 }

    /// A reader over the children of this constructed element.
    /// - Throws: `CryptoError.derNestingTooDeep` past the reader's depth limit.
    public func childReader() throws(CryptoError) -> DERReader {
        guard isConstructed else {
            throw .derInvalidValue("a primitive element was read as constructed")
        }
        guard depth + 1 <= maximumDepth else { throw .derNestingTooDeep(limit: maximumDepth) }
        return DERReader(slice: contents, depth: depth + 1, maximumDepth: maximumDepth)
    }

    /// BOOLEAN contents: exactly one octet, 0x00 or 0xFF (DER forbids other true values).
    public func booleanValue() throws(CryptoError) -> Bool {
        guard contents.count == 1, let byte = contents.first, byte == 0x00 || byte == 0xFF else {
            throw .derInvalidValue("a BOOLEAN is not 00 or FF")
        }
        return byte == 0xFF
    }

    /// NULL contents: none.
    public func nullValue() throws(CryptoError) {
        guard contents.isEmpty else { throw .derInvalidValue("a NULL has contents") }
    }

    /// INTEGER contents as minimal two's complement, checked and returned unchanged.
    private func checkedIntegerContents() throws(CryptoError) -> ArraySlice<UInt8> {
        guard let first = contents.first else { throw .derInvalidValue("an INTEGER is empty") }
        if contents.count > 1 {
            let second = contents[contents.startIndex + 1]
            if (first == 0x00 && second & 0x80 == 0) || (first == 0xFF && second & 0x80 != 0) {
                throw .derInvalidValue("an INTEGER is not minimally encoded")
            }
        }
        return contents
    }

    /// A non-negative INTEGER's big-endian magnitude without the sign octet (zero is [0]).
    /// - Throws: `CryptoError.derInvalidValue` for negative or non-minimal integers.
    public func unsignedIntegerValue() throws(CryptoError) -> [UInt8] {
        let octets = try checkedIntegerContents()
        guard let first = octets.first, first & 0x80 == 0 else {
            throw .derInvalidValue("an INTEGER is negative")
        }
        if first == 0x00 && octets.count > 1 { return Array(octets.dropFirst()) }
        return Array(octets)
    }

    /// A signed INTEGER that fits in 64 bits.
    public func integerValue() throws(CryptoError) -> Int64 {
        let octets = try checkedIntegerContents()
        guard octets.count <= 8, let first = octets.first else {
            throw .derInvalidValue("an INTEGER does not fit in 64 bits")
        }
        var value: Int64 = first & 0x80 != 0 ? -1 : 0
        for byte in octets {
            value = value << 8 | Int64(byte)
        }
        return value
    }

    /// BIT STRING contents: an unused-bit count 0...7 (0 when empty) and zero unused bits.
    public func bitStringValue() throws(CryptoError) -> DERBitString {
        guard let unused = contents.first, unused <= 7 else {
            throw .derInvalidValue("a BIT STRING has no valid unused-bit count")
        }
        let bits = Array(contents.dropFirst())
        if bits.isEmpty && unused != 0 {
            throw .derInvalidValue("an empty BIT STRING claims unused bits")
        }
        if let last = bits.last, last & UInt8((1 << unused) - 1) != 0 {
            throw .derInvalidValue("a BIT STRING has non-zero unused bits")
        }
        return DERBitString(bytes: bits, unusedBitCount: Int(unused))
    }

    /// OBJECT IDENTIFIER contents.
    public func objectIdentifierValue() throws(CryptoError) -> ASN1ObjectIdentifier {
        try ASN1ObjectIdentifier(derContents: contents)
    }

    /// The text of a UTF8String, PrintableString or IA5String, validated for its type.
    public func stringValue() throws(CryptoError) -> String {
        switch tag {
        case DERTag.utf8String:
            guard let text = String(validating: contents, as: UTF8.self) else {
                throw .derInvalidValue("a UTF8String is not valid UTF-8")
            }
            return text
        case DERTag.printableString:
            let text = String(decoding: contents, as: UTF8.self)
            guard contents.allSatisfy({ $0 < 0x80 }), DERWriter.isPrintableString(text) else {
                throw .derInvalidValue("a PrintableString has characters outside its set")
            }
            return text
        case DERTag.ia5String:
            guard contents.allSatisfy({ $0 < 0x80 }) else {
                throw .derInvalidValue("an IA5String has non-ASCII bytes")
            }
            return String(decoding: contents, as: UTF8.self)
        default:
            throw .derInvalidValue(String(format: "tag 0x%02x is not a supported string type", Int(tag)))
        }
    }

    /// A UTCTime or GeneralizedTime in RFC 5280's profile.
    public func timeValue() throws(CryptoError) -> Date {
        guard tag == DERTag.utcTime || tag == DERTag.generalizedTime else {
            throw .derUnexpectedTag(expected: DERTag.utcTime, found: tag, offset: offset)
        }
        return try ASN1Time.parse(contents, tag: tag)
    }
}
