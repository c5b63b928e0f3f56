/// Identifier octets of the DER types this code reads and writes (low-tag-number form only).
public enum DERTag {
    /// BOOLEAN.
    public static let boolean: UInt8 = 0x01
    /// INTEGER.
    public static let integer: UInt8 = 0x02
    /// BIT STRING.
    public static let bitString: UInt8 = 0x03
    /// OCTET STRING.
    public static let octetString: UInt8 = 0x04
    /// NULL.
    public static let null: UInt8 = 0x05
    /// OBJECT IDENTIFIER.
    public static let objectIdentifier: UInt8 = 0x06
    /// ENUMERATED.
    public static let enumerated: UInt8 = 0x0A
    /// UTF8String.
    public static let utf8String: UInt8 = 0x0C
    /// PrintableString.
    public static let printableString: UInt8 = 0x13
    /// IA5String.
    public static let ia5String: UInt8 = 0x16
    /// UTCTime.
    public static let utcTime: UInt8 = 0x17
    /// GeneralizedTime.
    public static let generalizedTime: UInt8 = 0x18
    /// SEQUENCE (constructed).
    public static let sequence: UInt8 = 0x30
    /// SET (constructed).
    public static let set: UInt8 = 0x31

    /// Bit 6 of the identifier: the element contains other elements.
    public static let constructedBit: UInt8 = 0x20

    /// The identifier of context-specific tag [number]; EXPLICIT tags are always constructed.
    /// - Parameter number: 0...30 (higher numbers need the unsupported multi-byte form).
    public static func contextSpecific(_ number: UInt8, constructed: Bool) -> UInt8 {
        0x80 | (constructed ? constructedBit : 0) | (number & 0x1F)
    }
}
