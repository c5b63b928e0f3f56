/// PKCS #1 RSAPrivateKey (RFC 8017 appendix A.1.2) and PKCS #8 (RFC 5208/5958) encodings and
/// PEM for RSA keys.
extension RSAPrivateKey {
    /// PEM label of a PKCS #1 RSAPrivateKey, as `openssl rsa -traditional` writes it.
    public static let pkcs1PEMLabel = "RSA PRIVATE KEY"

    /// The DER PKCS #1 RSAPrivateKey (version 0, two primes).
    public var pkcs1DERRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { key in
            key.writeInteger(0)
            for value in [
                publicKey.modulus, publicKey.publicExponent, privateExponent, prime1, prime2, exponent1, exponent2,
                coefficient,
            ] {
                key.writeUnsignedInteger(bigEndian: value.bigEndianBytes)
            }
        }
        return writer.bytes
    }

    /// The DER PKCS #8 PrivateKeyInfo (version 0, rsaEncryption with NULL parameters)
    /// wrapping the PKCS #1 key, as `openssl genpkey` writes it.
    public var derRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { info in
            info.writeInteger(0)
            info.writeSequence { algorithm in
                algorithm.writeObjectIdentifier(.rsaEncryption)
                algorithm.writeNull()
            }
            info.writeOctetString(pkcs1DERRepresentation)
        }
        return writer.bytes
    }

    /// PKCS #8 as "PRIVATE KEY" PEM text.
    public var pemRepresentation: String {
        PEMDocument(label: P256PrivateKey.pkcs8PEMLabel, derBytes: derRepresentation).pemString
    }

    /// PKCS #1 as "RSA PRIVATE KEY" PEM text.
    public var pkcs1PEMRepresentation: String {
        PEMDocument(label: Self.pkcs1PEMLabel, derBytes: pkcs1DERRepresentation).pemString
    }

    /// Reads a DER PKCS #8 PrivateKeyInfo / OneAsymmetricKey holding an RSA key.
    /// - Throws: `CryptoError` for malformed DER, another algorithm, or parts that do not form
    ///   one key.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var info = try PKCS8PrivateKeyInfo(derRepresentation, invalid: CryptoError.invalidRSAKey)
        guard info.algorithm == .rsaEncryption else { throw .unsupportedAlgorithm(info.algorithm.description) }
        try info.parameters.readNull()
        try info.parameters.finish()
        try self.init(pkcs1DERRepresentation: info.privateKey)
    }

    /// Reads a DER PKCS #1 RSAPrivateKey with two primes (version 0).
    public init(pkcs1DERRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var reader = DERReader(Array(pkcs1DERRepresentation))
        var key = try reader.readSequence()
        try reader.finish()
        guard try key.readInteger() == 0 else {
            throw .invalidRSAKey("only two-prime keys (RSAPrivateKey version 0) are read")
        }
        var values: [BigUInt] = []
        for _ in 0..<8 { values.append(BigUInt(bigEndianBytes: try key.readUnsignedInteger())) }
        try key.finish()
        try self.init(
            modulus: values[0], publicExponent: values[1], privateExponent: values[2], prime1: values[3],
            prime2: values[4], exponent1: values[5], exponent2: values[6], coefficient: values[7])
    }

    /// Reads the first "PRIVATE KEY" (PKCS #8) or "RSA PRIVATE KEY" (PKCS #1) block.
    public init(pemRepresentation: String) throws(CryptoError) {
        let block = try PEMDocument.first(
            in: pemRepresentation, labelled: [P256PrivateKey.pkcs8PEMLabel, Self.pkcs1PEMLabel])
        if block.label == Self.pkcs1PEMLabel {
            try self.init(pkcs1DERRepresentation: block.derBytes)
        } else {
            try self.init(derRepresentation: block.derBytes)
        }
    }
}
