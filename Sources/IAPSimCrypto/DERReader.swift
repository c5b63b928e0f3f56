import Foundation

/// Reads DER elements one after another from a byte string, throwing on anything that is
/// not strict DER: indefinite or non-minimal lengths, truncation, multi-byte tags, and
/// (through `DERElement`'s decoders) non-canonical primitive contents.
///
/// Bounds are checked before every access, and nesting is limited by `maximumDepth`
/// because callers descend with `readSequence()` and friends, one level per call.
public struct DERReader: Sendable {
    /// Default limit on nesting; X.509 needs fewer than ten levels.
    public static let defaultMaximumDepth = 32

    private let bytes: ArraySlice<UInt8>
    private var position: Int
    /// How many constructed elements enclose this reader's bytes.
    public let depth: Int
    /// The deepest nesting this reader and its children accept.
    public let maximumDepth: Int

    /// Creates a reader over a whole input.
    public init(_ bytes: [UInt8], maximumDepth: Int = DERReader.defaultMaximumDepth) {
        self.init(slice: bytes[...], depth: 0, maximumDepth: maximumDepth)
    }

    init(slice: ArraySlice<UInt8>, depth: Int, maximumDepth: Int) {
        bytes = slice
        position = slice.startIndex
        self.depth = depth
        self.maximumDepth = maximumDepth
    }

    /// Whether every element has been read.
    public var isAtEnd: Bool { position >= bytes.endIndex }

    /// The identifier octet of the next element, if any.
    public var nextTag: UInt8? { isAtEnd ? nil : bytes[position] }

    /// Throws unless every byte has been consumed.
    public func finish() throws(CryptoError) {
        guard isAtEnd else { throw .derTrailingBytes(count: bytes.endIndex - position) }
    }

    /// Reads the next element of any type.
    public mutating func readElement() throws(CryptoError) -> DERElement {
        let start = position
        guard start < bytes.endIndex else { throw .derTruncated(offset: start) }
        let tag = bytes[start]
        guard tag & 0x1F != 0x1F else { throw .derUnsupportedTag(offset: start) }
        var cursor = start + 1
        guard cursor < bytes.endIndex else { throw .derTruncated(offset: start) }
        let first = bytes[cursor]
        cursor += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            // 0x80 is BER's indefinite form; more than 4 length octets exceeds any real input.
            let octetCount = Int(first & 0x7F)
            guard octetCount >= 1, octetCount <= 4 else { throw .derInvalidLength(offset: start) }
            guard bytes.endIndex - cursor >= octetCount else { throw .derTruncated(offset: start) }
            guard bytes[cursor] != 0 else { throw .derInvalidLength(offset: start) }
            for _ in 0..<octetCount {
                length = length << 8 | Int(bytes[cursor])
                cursor += 1
            }
            guard length >= 0x80 else { throw .derInvalidLength(offset: start) }
        }
        guard bytes.endIndex - cursor >= length else { throw .derTruncated(offset: start) }
        position = cursor + length
        return DERElement(
            tag: tag, contents: bytes[cursor..<position], encoded: bytes[start..<position],
            offset: start, depth: depth, maximumDepth: maximumDepth)
    }

    /// Reads the next element, which must carry `tag`.
    public mutating func readElement(tag: UInt8) throws(CryptoError) -> DERElement {
        let saved = position
        let element = try readElement()
        guard element.tag == tag else {
            position = saved
            throw .derUnexpectedTag(expected: tag, found: element.tag, offset: element.offset)
        }
        return element
    }

    /// Reads the next element only if it carries `tag`; returns nil (consuming nothing) otherwise.
    public mutating func readOptionalElement(tag: UInt8) throws(CryptoError) -> DERElement? {
        guard nextTag == tag else { return nil }
        return try readElement(tag: tag)
    }

    /// Reads a SEQUENCE and returns a reader over its children.
    public mutating func readSequence() throws(CryptoError) -> DERReader {
        try readElement(tag: DERTag.sequence).childReader()
    }

    /// Reads a SET and returns a reader over its children.
    public mutating func readSet() throws(CryptoError) -> DERReader {
        try readElement(tag: DERTag.set).childReader()
    }

    /// Reads an EXPLICIT [number] if present and returns a reader over what it wraps.
    public mutating func readOptionalExplicit(tagNumber: UInt8) throws(CryptoError) -> DERReader? {
        try readOptionalElement(tag: DERTag.contextSpecific(tagNumber, constructed: true))?.childReader()
    }

    /// Reads a BOOLEAN.
    public mutating func readBoolean() throws(CryptoError) -> Bool {
        try readElement(tag: DERTag.boolean).booleanValue()
    }

    /// Reads an INTEGER that fits in 64 bits.
    public mutating func readInteger() throws(CryptoError) -> Int64 {
        try readElement(tag: DERTag.integer).integerValue()
    }

    /// Reads a non-negative INTEGER's big-endian magnitude.
    public mutating func readUnsignedInteger() throws(CryptoError) -> [UInt8] {
        try readElement(tag: DERTag.integer).unsignedIntegerValue()
    }

    /// Reads a BIT STRING.
    public mutating func readBitString() throws(CryptoError) -> DERBitString {
        try readElement(tag: DERTag.bitString).bitStringValue()
    }

    /// Reads an OCTET STRING's contents.
    public mutating func readOctetString() throws(CryptoError) -> [UInt8] {
        Array(try readElement(tag: DERTag.octetString).contents)
    }

    /// Reads a NULL.
    public mutating func readNull() throws(CryptoError) {
        try readElement(tag: DERTag.null).nullValue()
    }

    /// Reads an OBJECT IDENTIFIER.
    public mutating func readObjectIdentifier() throws(CryptoError) -> ASN1ObjectIdentifier {
        try readElement(tag: DERTag.objectIdentifier).objectIdentifierValue()
    }

    /// Reads a UTF8String, PrintableString or IA5String.
    public mutating func readString() throws(CryptoError) -> String {
        try readElement().stringValue()
    }

    /// Reads a UTCTime or GeneralizedTime.
    public mutating func readTime() throws(CryptoError) -> Date {
        try readElement().timeValue()
    }
}
