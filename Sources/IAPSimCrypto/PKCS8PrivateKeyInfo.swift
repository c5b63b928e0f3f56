/// A DER PKCS #8 PrivateKeyInfo, or its version 1 OneAsymmetricKey (RFC 5958): the envelope
/// both P-256 and RSA keys are read from, the key in its algorithm's own encoding inside.
struct PKCS8PrivateKeyInfo {
    /// The key's algorithm.
    var algorithm: ASN1ObjectIdentifier
    /// The rest of the AlgorithmIdentifier (a curve, RSA's NULL), for the algorithm to read.
    var parameters: DERReader
    /// The privateKey octets: SEC 1 ECPrivateKey, PKCS #1 RSAPrivateKey.
    var privateKey: [UInt8]
    /// Version 1's public key [1], if present; attributes [0] are skipped.
    var publicKey: DERElement?

    /// Reads `der`; a version other than 0 or 1 is `invalid`'s error.
    init(_ der: some Collection<UInt8>, invalid: (String) -> CryptoError) throws(CryptoError) {
        var reader = DERReader(Array(der))
        var info = try reader.readSequence()
        try reader.finish()
        let version = try info.readInteger()
        guard version == 0 || version == 1 else { throw invalid("PKCS#8 version \(version) is not 0 or 1") }
        parameters = try info.readSequence()
        algorithm = try parameters.readObjectIdentifier()
        privateKey = try info.readOctetString()
        _ = try info.readOptionalElement(tag: DERTag.contextSpecific(0, constructed: true))
        publicKey = try info.readOptionalElement(tag: DERTag.contextSpecific(1, constructed: false))
        try info.finish()
    }
}
