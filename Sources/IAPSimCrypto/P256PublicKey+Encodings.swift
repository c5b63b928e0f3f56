/// SubjectPublicKeyInfo (RFC 5280 §4.1.2.7, RFC 5480) and "PUBLIC KEY" PEM for P-256 keys.
extension P256PublicKey {
    /// PEM label of an SPKI public key.
    public static let pemLabel = "PUBLIC KEY"

    /// The DER SubjectPublicKeyInfo: id-ecPublicKey, namedCurve prime256v1, uncompressed point.
    public var derRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { spki in
            spki.writeSequence { algorithm in
                algorithm.writeObjectIdentifier(.ecPublicKey)
                algorithm.writeObjectIdentifier(.prime256v1)
            }
            spki.writeBitString(bytes: x963Representation)
        }
        return writer.bytes
    }

    /// The SPKI as "PUBLIC KEY" PEM text.
    public var pemRepresentation: String {
        PEMDocument(label: Self.pemLabel, derBytes: derRepresentation).pemString
    }

    /// Reads a DER SubjectPublicKeyInfo holding a P-256 key.
    /// - Throws: `CryptoError` for malformed DER, another algorithm or curve, or an invalid point.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var reader = DERReader(Array(derRepresentation))
        var spki = try reader.readSequence()
        try reader.finish()
        try self.init(spki: &spki)
        try spki.finish()
    }

    /// Reads the first "PUBLIC KEY" block of `pemRepresentation`.
    public init(pemRepresentation: String) throws(CryptoError) {
        try self.init(derRepresentation: PEMDocument(pemString: pemRepresentation, label: Self.pemLabel).derBytes)
    }

    /// Reads the fields of an SPKI SEQUENCE (shared with the certificate parser).
    init(spki: inout DERReader) throws(CryptoError) {
        var algorithm = try spki.readSequence()
        let algorithmIdentifier = try algorithm.readObjectIdentifier()
        guard algorithmIdentifier == .ecPublicKey else { throw .unsupportedAlgorithm(algorithmIdentifier.description) }
        // RFC 5480: the parameters must be a namedCurve; explicit curve parameters are refused.
        let curve = try algorithm.readObjectIdentifier()
        guard curve == .prime256v1 else { throw .unsupportedCurve(curve.description) }
        try algorithm.finish()
        let bits = try spki.readBitString()
        guard bits.unusedBitCount == 0 else { throw .invalidPublicKey("the key BIT STRING has unused bits") }
        try self.init(x963Representation: bits.bytes)
    }
}
