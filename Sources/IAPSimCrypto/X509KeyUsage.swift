/// The keyUsage extension's bits (RFC 5280 §4.2.1.3); bit n of `rawValue` is named bit n.
public struct X509KeyUsage: OptionSet, Sendable, Hashable {
    /// Bit n set means named bit n is asserted.
    public let rawValue: UInt16

    /// Creates a set from its raw bits.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The key may be used for signatures other than on certificates and CRLs (bit 0).
    public static let digitalSignature = X509KeyUsage(rawValue: 1 << 0)
    /// The key may be used for content commitment (bit 1).
    public static let nonRepudiation = X509KeyUsage(rawValue: 1 << 1)
    /// The key may be used for key transport (bit 2).
    public static let keyEncipherment = X509KeyUsage(rawValue: 1 << 2)
    /// The key may be used for direct data encryption (bit 3).
    public static let dataEncipherment = X509KeyUsage(rawValue: 1 << 3)
    /// The key may be used for key agreement (bit 4).
    public static let keyAgreement = X509KeyUsage(rawValue: 1 << 4)
    /// The key may be used for signing certificates; CA keys only (bit 5).
    public static let keyCertSign = X509KeyUsage(rawValue: 1 << 5)
    /// The key may be used for signing CRLs (bit 6).
    public static let cRLSign = X509KeyUsage(rawValue: 1 << 6)
    /// The key may be used for with keyAgreement, encryption only (bit 7).
    public static let encipherOnly = X509KeyUsage(rawValue: 1 << 7)
    /// The key may be used for with keyAgreement, decryption only (bit 8).
    public static let decipherOnly = X509KeyUsage(rawValue: 1 << 8)

    /// The DER named-bit-list BIT STRING: bit 0 is the top bit of the first byte, and
    /// trailing zero bits are dropped (X.690 §11.2.2), so the unused-bit count varies.
    public var bitString: DERBitString {
        guard rawValue != 0 else { return DERBitString(bytes: []) }
        let highest = 15 - rawValue.leadingZeroBitCount
        var bytes = [UInt8](repeating: 0, count: highest / 8 + 1)
        for bit in 0...highest where rawValue & (1 << UInt16(bit)) != 0 {
            bytes[bit / 8] |= 0x80 >> UInt8(bit % 8)
        }
        return DERBitString(bytes: bytes, unusedBitCount: 7 - highest % 8)
    }

    /// Reads a named-bit-list BIT STRING (bits past decipherOnly are ignored).
    public init(bitString: DERBitString) {
        var value: UInt16 = 0
        for (index, byte) in bitString.bytes.prefix(2).enumerated() {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                value |= 1 << UInt16(index * 8 + bit)
            }
        }
        self.init(rawValue: value & 0x01FF)
    }
}
