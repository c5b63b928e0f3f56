/// One certificate extension (RFC 5280 §4.1): an identifier, a criticality flag and the
/// DER of the extension's value (the contents of extnValue's OCTET STRING).
public struct X509Extension: Equatable, Sendable {
    /// The extension's OID, e.g. `ASN1ObjectIdentifier.basicConstraints`.
    public let identifier: ASN1ObjectIdentifier
    /// Whether a relying party that does not understand it must reject the certificate.
    public let isCritical: Bool
    /// The DER-encoded extension value.
    public let value: [UInt8]

    /// Creates an extension from its parts.
    public init(identifier: ASN1ObjectIdentifier, isCritical: Bool, value: [UInt8]) {
        self.identifier = identifier
        self.isCritical = isCritical
        self.value = value
    }

    /// basicConstraints, critical: cA and an optional pathLenConstraint. For an end entity
    /// the value is an empty SEQUENCE, because DER omits the default cA FALSE.
    public static func basicConstraints(isCertificateAuthority: Bool, pathLengthConstraint: Int? = nil) -> X509Extension
    {
        var writer = DERWriter()
        writer.writeSequence { constraints in
            if isCertificateAuthority {
                constraints.writeBoolean(true)
                if let pathLengthConstraint { constraints.writeInteger(Int64(pathLengthConstraint)) }
            }
        }
        return X509Extension(identifier: .basicConstraints, isCritical: true, value: writer.bytes)
    }

    /// keyUsage, critical.
    public static func keyUsage(_ usage: X509KeyUsage) -> X509Extension {
        var writer = DERWriter()
        writer.writeBitString(usage.bitString)
        return X509Extension(identifier: .keyUsage, isCritical: true, value: writer.bytes)
    }

    /// subjectKeyIdentifier, non-critical (RFC 5280 §4.2.1.2 forbids marking it critical).
    public static func subjectKeyIdentifier(_ identifier: [UInt8]) -> X509Extension {
        var writer = DERWriter()
        writer.writeOctetString(identifier)
        return X509Extension(identifier: .subjectKeyIdentifier, isCritical: false, value: writer.bytes)
    }

    /// authorityKeyIdentifier with only the keyIdentifier ([0] IMPLICIT OCTET STRING), non-critical.
    public static func authorityKeyIdentifier(_ keyIdentifier: [UInt8]) -> X509Extension {
        var writer = DERWriter()
        writer.writeSequence { $0.writeImplicit(tagNumber: 0, contents: keyIdentifier) }
        return X509Extension(identifier: .authorityKeyIdentifier, isCritical: false, value: writer.bytes)
    }

    /// A non-critical marker extension whose value is DER NULL (05 00): a CA's way to tag the
    /// certificates it issues for one purpose.
    public static func marker(_ identifier: ASN1ObjectIdentifier) -> X509Extension {
        X509Extension(identifier: identifier, isCritical: false, value: [DERTag.null, 0x00])
    }

    /// The key identifier of RFC 7093 §2 method 1: the leftmost 160 bits of SHA-256 of the
    /// subjectPublicKey BIT STRING's bytes (for P-256, the uncompressed point).
    public static func keyIdentifier(for key: P256PublicKey) -> [UInt8] {
        Array(SHA256.hash(key.x963Representation).prefix(20))
    }

    /// Decodes a basicConstraints value.
    public func basicConstraints() throws(CryptoError) -> (isCertificateAuthority: Bool, pathLengthConstraint: Int?) {
        var reader = DERReader(value)
        var sequence = try reader.readSequence()
        try reader.finish()
        let isCA = try sequence.readOptionalElement(tag: DERTag.boolean)?.booleanValue() ?? false
        let pathLength = try sequence.readOptionalElement(tag: DERTag.integer)?.integerValue()
        try sequence.finish()
        guard pathLength.map({ $0 >= 0 && $0 <= Int64(Int32.max) }) ?? true else {
            throw .invalidCertificate("pathLenConstraint is out of range")
        }
        return (isCA, pathLength.map { Int($0) })
    }

    /// Decodes a keyUsage value.
    public func keyUsage() throws(CryptoError) -> X509KeyUsage {
        var reader = DERReader(value)
        let bits = try reader.readBitString()
        try reader.finish()
        return X509KeyUsage(bitString: bits)
    }

    /// Decodes a subjectKeyIdentifier value.
    public func subjectKeyIdentifier() throws(CryptoError) -> [UInt8] {
        var reader = DERReader(value)
        let identifier = try reader.readOctetString()
        try reader.finish()
        return identifier
    }

    /// Decodes the keyIdentifier of an authorityKeyIdentifier value (nil when absent).
    public func authorityKeyIdentifier() throws(CryptoError) -> [UInt8]? {
        var reader = DERReader(value)
        var sequence = try reader.readSequence()
        try reader.finish()
        return try sequence.readOptionalElement(tag: DERTag.contextSpecific(0, constructed: false)).map {
            Array($0.contents)
        }
    }

    /// The DER Extension SEQUENCE; criticality FALSE is omitted, as DER requires for defaults.
    func write(to writer: inout DERWriter) {
        writer.writeSequence { sequence in
            sequence.writeObjectIdentifier(identifier)
            if isCritical { sequence.writeBoolean(true) }
            sequence.writeOctetString(value)
        }
    }
}
