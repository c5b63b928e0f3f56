import Foundation

/// Builds DER encodings element by element; constructed elements take a closure that
/// writes their children.
///
/// Children are encoded into a nested writer first so each length is known exactly and
/// always written in minimal form, which is what makes the output DER rather than BER.
public struct DERWriter: Sendable {
    /// The encoding written so far.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty writer.
    public init() {}

    /// Writes one element with the given identifier octet and contents.
    public mutating func writeElement(tag: UInt8, contents: some Collection<UInt8>) {
        bytes.append(tag)
        Self.appendLength(contents.count, to: &bytes)
        bytes.append(contentsOf: contents)
    }

    /// Appends an already-encoded element (or several) unchanged.
    public mutating func writeEncoded(_ encoded: some Collection<UInt8>) {
        bytes.append(contentsOf: encoded)
    }

    /// Writes a constructed element whose children `body` writes.
    public mutating func writeConstructed<E: Error>(
        tag: UInt8, _ body: (inout DERWriter) throws(E) -> Void
    ) throws(E) {
        var child = DERWriter()
        try body(&child)
        writeElement(tag: tag, contents: child.bytes)
    }

    /// Writes a SEQUENCE whose children `body` writes.
    public mutating func writeSequence<E: Error>(_ body: (inout DERWriter) throws(E) -> Void) throws(E) {
        try writeConstructed(tag: DERTag.sequence, body)
    }

    /// Writes a SET whose children `body` writes (in the order given; a SET OF with more
    /// than one member must be sorted by the caller).
    public mutating func writeSet<E: Error>(_ body: (inout DERWriter) throws(E) -> Void) throws(E) {
        try writeConstructed(tag: DERTag.set, body)
    }

    /// Writes an EXPLICIT context-specific tag [number] wrapping what `body` writes.
    public mutating func writeExplicit<E: Error>(
        tagNumber: UInt8, _ body: (inout DERWriter) throws(E) -> Void
    ) throws(E) {
        try writeConstructed(tag: DERTag.contextSpecific(tagNumber, constructed: true), body)
    }

    /// Writes an IMPLICIT context-specific tag [number] carrying `contents` directly.
    public mutating func writeImplicit(tagNumber: UInt8, constructed: Bool = false, contents: some Collection<UInt8>) {
        writeElement(tag: DERTag.contextSpecific(tagNumber, constructed: constructed), contents: contents)
    }

    /// Writes a BOOLEAN (DER: 0xFF for true).
    public mutating func writeBoolean(_ value: Bool) {
        writeElement(tag: DERTag.boolean, contents: [value ? 0xFF : 0x00])
    }

    /// Writes a signed INTEGER in minimal two's complement.
    public mutating func writeInteger(_ value: Int64) {
        var contents = (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * Int64($0))) }
        // Drop a leading byte while it only repeats the sign of the next one.
        while contents.count > 1,
            (contents[0] == 0x00 && contents[1] & 0x80 == 0) || (contents[0] == 0xFF && contents[1] & 0x80 != 0)
        {
            contents.removeFirst()
        }
        writeElement(tag: DERTag.integer, contents: contents)
    }

    /// Writes a non-negative INTEGER from its big-endian magnitude: leading zeros are
    /// stripped and a 0x00 is prepended when the top bit is set, so it never reads as negative.
    public mutating func writeUnsignedInteger(bigEndian magnitude: some Collection<UInt8>) {
        var contents = Array(magnitude.drop(while: { $0 == 0 }))
        if contents.first.map({ $0 & 0x80 != 0 }) ?? true {
            contents.insert(0x00, at: 0)
        }
        writeElement(tag: DERTag.integer, contents: contents)
    }

    /// Writes a BIT STRING.
    public mutating func writeBitString(_ value: DERBitString) {
        writeElement(tag: DERTag.bitString, contents: [UInt8(value.unusedBitCount)] + value.bytes)
    }

    /// Writes a BIT STRING of whole bytes (no unused bits), as keys and signatures use.
    public mutating func writeBitString(bytes: some Collection<UInt8>) {
        writeElement(tag: DERTag.bitString, contents: [0x00] + Array(bytes))
    }

    /// Writes an OCTET STRING.
    public mutating func writeOctetString(_ contents: some Collection<UInt8>) {
        writeElement(tag: DERTag.octetString, contents: contents)
    }

    /// Writes NULL (05 00).
    public mutating func writeNull() {
        writeElement(tag: DERTag.null, contents: [])
    }

    /// Writes an OBJECT IDENTIFIER.
    public mutating func writeObjectIdentifier(_ identifier: ASN1ObjectIdentifier) {
        writeElement(tag: DERTag.objectIdentifier, contents: identifier.derContents)
    }

    /// Writes a UTF8String.
    public mutating func writeUTF8String(_ text: String) {
        writeElement(tag: DERTag.utf8String, contents: Array(text.utf8))
    }

    /// Writes a PrintableString.
    /// - Throws: `CryptoError.unencodableValue` if `text` has a character PrintableString lacks.
    public mutating func writePrintableString(_ text: String) throws(CryptoError) {
        guard Self.isPrintableString(text) else {
            throw .unencodableValue("\"\(text)\" has characters a PrintableString cannot hold")
        }
        writeElement(tag: DERTag.printableString, contents: Array(text.utf8))
    }

    /// Writes a time as RFC 5280 wants: UTCTime for 1950–2049, GeneralizedTime otherwise.
    /// - Throws: `CryptoError.unencodableValue` for dates outside years 0–9999.
    public mutating func writeTime(_ date: Date) throws(CryptoError) {
        writeEncoded(try ASN1Time.encodeTime(date))
    }

    /// Whether every character is in PrintableString's set (X.680 §41.4).
    public static func isPrintableString(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return " '()+,-./:=?".utf8.contains(byte)
            }
        }
    }

    private static func appendLength(_ length: Int, to output: inout [UInt8]) {
        if length < 0x80 {
            output.append(UInt8(length))
            return
        }
        var octets = [UInt8]()
        var rest = length
        while rest > 0 {
            octets.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
        }
        output.append(0x80 | UInt8(octets.count))
        output.append(contentsOf: octets)
    }
}
