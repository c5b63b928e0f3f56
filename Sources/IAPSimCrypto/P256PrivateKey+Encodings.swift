/// PKCS#8 (RFC 5208/5958) and SEC 1 ECPrivateKey (RFC 5915) encodings and PEM for P-256 keys.
extension P256PrivateKey {
    /// PEM label of a PKCS#8 private key.
    public static let pkcs8PEMLabel = "PRIVATE KEY"
    /// PEM label of a SEC 1 ECPrivateKey.
    public static let sec1PEMLabel = "EC PRIVATE KEY"

    /// The DER SEC 1 ECPrivateKey with the curve and public key included, as
    /// `openssl ec` writes it.
    public var sec1DERRepresentation: [UInt8] {
        ecPrivateKey(includingParameters: true)
    }

    /// The DER PKCS#8 PrivateKeyInfo (version 0) wrapping an ECPrivateKey without the
    /// redundant curve parameters, as `openssl pkey` writes it.
    public var derRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { info in
            info.writeInteger(0)
            info.writeSequence { algorithm in
                algorithm.writeObjectIdentifier(.ecPublicKey)
                algorithm.writeObjectIdentifier(.prime256v1)
            }
            info.writeOctetString(ecPrivateKey(includingParameters: false))
        }
        return writer.bytes
    }

    /// PKCS#8 as "PRIVATE KEY" PEM text.
    public var pemRepresentation: String {
        PEMDocument(label: Self.pkcs8PEMLabel, derBytes: derRepresentation).pemString
    }

    /// SEC 1 as "EC PRIVATE KEY" PEM text.
    public var sec1PEMRepresentation: String {
        PEMDocument(label: Self.sec1PEMLabel, derBytes: sec1DERRepresentation).pemString
    }

    private func ecPrivateKey(includingParameters: Bool) -> [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { key in
            key.writeInteger(1)
            key.writeOctetString(rawRepresentation)
            if includingParameters {
                key.writeExplicit(tagNumber: 0) { $0.writeObjectIdentifier(.prime256v1) }
            }
            key.writeExplicit(tagNumber: 1) { $0.writeBitString(bytes: publicKey.x963Representation) }
        }
        return writer.bytes
    }

    /// Reads a DER PKCS#8 PrivateKeyInfo / OneAsymmetricKey holding a P-256 key.
    /// - Throws: `CryptoError` for malformed DER, another algorithm or curve, a scalar out of
    ///   range, or an embedded public key that does not match the private one.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var info = try PKCS8PrivateKeyInfo(derRepresentation, invalid: CryptoError.invalidPrivateKey)
        guard info.algorithm == .ecPublicKey else { throw .unsupportedAlgorithm(info.algorithm.description) }
        let curve = try info.parameters.readObjectIdentifier()
        guard curve == .prime256v1 else { throw .unsupportedCurve(curve.description) }
        try info.parameters.finish()
        try self.init(sec1DERRepresentation: info.privateKey)
        // Version 1's public key must be this key's.
        if let outerPublicKey = info.publicKey {
            let bits = try outerPublicKey.bitStringValue()
            guard bits.unusedBitCount == 0, bits.bytes == publicKey.x963Representation else {
                throw .invalidPrivateKey("the PKCS#8 public key does not match the private key")
            }
        }
    }

    /// Reads a DER SEC 1 ECPrivateKey (RFC 5915); the curve parameters, when present, must
    /// name P-256, and the public key, when present, must match.
    public init(sec1DERRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var reader = DERReader(Array(sec1DERRepresentation))
        var key = try reader.readSequence()
        try reader.finish()
        guard try key.readInteger() == 1 else { throw .invalidPrivateKey("ECPrivateKey version is not 1") }
        let secret = try key.readOctetString()
        // RFC 5915 fixes the length at 32 bytes; shorter (leading zeros dropped) is padded,
        // since some old writers did that.
        guard !secret.isEmpty, secret.count <= 32 else {
            throw .invalidPrivateKey("the private key octet string is \(secret.count) bytes")
        }
        if var parameters = try key.readOptionalExplicit(tagNumber: 0) {
            let curve = try parameters.readObjectIdentifier()
            guard curve == .prime256v1 else { throw .unsupportedCurve(curve.description) }
            try parameters.finish()
        }
        var embeddedPublicKey: [UInt8]?
        if var publicKeyField = try key.readOptionalExplicit(tagNumber: 1) {
            let bits = try publicKeyField.readBitString()
            try publicKeyField.finish()
            guard bits.unusedBitCount == 0 else { throw .invalidPublicKey("the key BIT STRING has unused bits") }
            embeddedPublicKey = bits.bytes
        }
        try key.finish()
        try self.init(rawRepresentation: [UInt8](repeating: 0, count: 32 - secret.count) + secret)
        if let embeddedPublicKey, embeddedPublicKey != publicKey.x963Representation {
            throw .invalidPrivateKey("the embedded public key does not match the private key")
        }
    }

    /// Reads the first "PRIVATE KEY" (PKCS#8) or "EC PRIVATE KEY" (SEC 1) block of
    /// `pemRepresentation`, skipping others such as openssl's "EC PARAMETERS".
    public init(pemRepresentation: String) throws(CryptoError) {
        let block = try PEMDocument.first(in: pemRepresentation, labelled: [Self.pkcs8PEMLabel, Self.sec1PEMLabel])
        if block.label == Self.pkcs8PEMLabel {
            try self.init(derRepresentation: block.derBytes)
        } else {
            try self.init(sec1DERRepresentation: block.derBytes)
        }
    }
}
