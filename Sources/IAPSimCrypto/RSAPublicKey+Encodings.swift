/// SubjectPublicKeyInfo (RFC 5280 §4.1.2.7 with RFC 3279 §2.3.1's rsaEncryption) and PKCS #1
/// RSAPublicKey (RFC 8017 appendix A.1.1) for RSA keys.
extension RSAPublicKey {
    /// The DER PKCS #1 RSAPublicKey: SEQUENCE { modulus, publicExponent }.
    public var pkcs1DERRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { key in
            key.writeUnsignedInteger(bigEndian: modulus.bigEndianBytes)
            key.writeUnsignedInteger(bigEndian: publicExponent.bigEndianBytes)
        }
        return writer.bytes
    }

    /// The DER SubjectPublicKeyInfo: rsaEncryption with NULL parameters, and the PKCS #1 key.
    public var derRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { spki in
            spki.writeSequence { algorithm in
                algorithm.writeObjectIdentifier(.rsaEncryption)
                algorithm.writeNull()
            }
            spki.writeBitString(bytes: pkcs1DERRepresentation)
        }
        return writer.bytes
    }

    /// The SPKI as "PUBLIC KEY" PEM text, as `openssl rsa -pubout` writes it.
    public var pemRepresentation: String {
        PEMDocument(label: P256PublicKey.pemLabel, derBytes: derRepresentation).pemString
    }

    /// Reads a DER SubjectPublicKeyInfo holding an RSA key.
    /// - Throws: `CryptoError` for malformed DER, another algorithm, parameters other than
    ///   NULL, or a modulus or exponent RFC 8017 rules out.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var reader = DERReader(Array(derRepresentation))
        var spki = try reader.readSequence()
        try reader.finish()
        var algorithm = try spki.readSequence()
        let identifier = try algorithm.readObjectIdentifier()
        guard identifier == .rsaEncryption else { throw .unsupportedAlgorithm(identifier.description) }
        try algorithm.readNull()
        try algorithm.finish()
        let bits = try spki.readBitString()
        try spki.finish()
        guard bits.unusedBitCount == 0 else { throw .invalidRSAKey("the key BIT STRING has unused bits") }
        try self.init(pkcs1DERRepresentation: bits.bytes)
    }

    /// Reads a DER PKCS #1 RSAPublicKey.
    public init(pkcs1DERRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var reader = DERReader(Array(pkcs1DERRepresentation))
        var key = try reader.readSequence()
        try reader.finish()
        let modulus = try key.readUnsignedInteger()
        let exponent = try key.readUnsignedInteger()
        try key.finish()
        try self.init(modulus: BigUInt(bigEndianBytes: modulus), publicExponent: BigUInt(bigEndianBytes: exponent))
    }

    /// Reads the first "PUBLIC KEY" block of `pemRepresentation`.
    public init(pemRepresentation: String) throws(CryptoError) {
        try self.init(
            derRepresentation: PEMDocument(pemString: pemRepresentation, label: P256PublicKey.pemLabel).derBytes)
    }
}
