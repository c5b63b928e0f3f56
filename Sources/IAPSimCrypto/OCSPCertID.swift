/// The CertID of RFC 6960 §4.1.1: a certificate named by hashes of its issuer's name and key
/// and by its serial number, as an OCSP request asks about it and the response answers.
public struct OCSPCertID: Sendable, Equatable {
    /// The hash the two issuer hashes were made with.
    public enum HashAlgorithm: Sendable, Equatable {
        /// id-sha1, the default of most clients (openssl, Go).
        case sha1
        /// id-sha256, as Apple's `SignedDataVerifier` asks.
        case sha256

        /// The digest of `bytes` under this algorithm.
        public func hash(_ bytes: [UInt8]) -> [UInt8] {
            switch self {
            case .sha1: SHA1.hash(bytes)
            case .sha256: SHA256.hash(bytes)
            }
        }

        var identifier: ASN1ObjectIdentifier {
            switch self {
            case .sha1: .sha1
            case .sha256: .sha256
            }
        }
    }

    /// The hash algorithm, or nil for one this responder cannot compute (the CertID then
    /// matches no issuer).
    public let hashAlgorithm: HashAlgorithm?
    /// The hash of the issuer's DER subject name.
    public let issuerNameHash: [UInt8]
    /// The hash of the issuer's subjectPublicKey BIT STRING value.
    public let issuerKeyHash: [UInt8]
    /// The serial number's big-endian magnitude, as `X509Certificate.serialNumber` holds it.
    public let serialNumber: [UInt8]
    /// The CertID's DER as it came (or was made): a response repeats it byte for byte, so a
    /// client's comparison never depends on how the algorithm's parameters were spelled.
    public let derRepresentation: [UInt8]

    /// The CertID of `certificate`, issued by `issuer`, hashed with `hashAlgorithm`.
    /// - Throws: `CryptoError` when the issuer's public key info is malformed.
    public init(
        certificate: X509Certificate, issuer: X509Certificate, hashAlgorithm: HashAlgorithm = .sha1
    ) throws(CryptoError) {
        let nameHash = hashAlgorithm.hash(issuer.subjectBytes)
        let keyHash = hashAlgorithm.hash(try issuer.subjectPublicKeyBits())
        var writer = DERWriter()
        writer.writeSequence { id in
            // RFC 5754 §2: SHA-2 parameters are absent; id-sha1's are conventionally NULL.
            id.writeSequence { algorithm in
                algorithm.writeObjectIdentifier(hashAlgorithm.identifier)
                if hashAlgorithm == .sha1 { algorithm.writeNull() }
            }
            id.writeOctetString(nameHash)
            id.writeOctetString(keyHash)
            id.writeUnsignedInteger(bigEndian: certificate.serialNumber)
        }
        self.hashAlgorithm = hashAlgorithm
        issuerNameHash = nameHash
        issuerKeyHash = keyHash
        serialNumber = certificate.serialNumber
        derRepresentation = writer.bytes
    }

    /// Parses a CertID element.
    /// - Throws: `CryptoError` for malformed DER or a negative serial number.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(derRepresentation)
        var reader = DERReader(bytes)
        var id = try reader.readSequence()
        try reader.finish()
        var algorithm = try id.readSequence()
        let identifier = try algorithm.readObjectIdentifier()
        if !algorithm.isAtEnd { try algorithm.readNull() }
        try algorithm.finish()
        switch identifier {
        case .sha1: hashAlgorithm = .sha1
        case .sha256: hashAlgorithm = .sha256
        default: hashAlgorithm = nil
        }
        issuerNameHash = try id.readOctetString()
        issuerKeyHash = try id.readOctetString()
        serialNumber = try id.readUnsignedInteger()
        try id.finish()
        self.derRepresentation = bytes
    }

    /// Whether this CertID names a certificate `issuer` issued: both issuer hashes match.
    public func isIssued(by issuer: X509Certificate) -> Bool {
        guard let hashAlgorithm, let bits = try? issuer.subjectPublicKeyBits() else { return false }
        return issuerNameHash == hashAlgorithm.hash(issuer.subjectBytes) && issuerKeyHash == hashAlgorithm.hash(bits)
    }

    /// Whether this CertID names `certificate` itself, issued by `issuer`.
    public func names(_ certificate: X509Certificate, issuedBy issuer: X509Certificate) -> Bool {
        serialNumber == certificate.serialNumber && certificate.issuerBytes == issuer.subjectBytes
            && isIssued(by: issuer)
    }
}

extension X509Certificate {
    /// The subjectPublicKey BIT STRING's bytes (for P-256 the uncompressed point): what OCSP's
    /// issuerKeyHash and a responder's byKey hash.
    public func subjectPublicKeyBits() throws(CryptoError) -> [UInt8] {
        var reader = DERReader(subjectPublicKeyInfoBytes)
        var info = try reader.readSequence()
        _ = try info.readElement(tag: DERTag.sequence)
        let bits = try info.readBitString()
        return bits.bytes
    }
}
