/// A public key a certificate can certify: anything with a SubjectPublicKeyInfo.
public protocol X509SubjectPublicKey: Sendable {
    /// The DER SubjectPublicKeyInfo.
    var derRepresentation: [UInt8] { get }
}

/// A private key that signs certificates and CMS SignedData: P-256 (ecdsa-with-SHA256) or
/// RSA (sha256WithRSAEncryption).
public protocol X509SigningKey: Sendable {
    /// The DER AlgorithmIdentifier its signatures carry, parameters included or not as the
    /// algorithm's RFC says.
    var signatureAlgorithmIdentifier: [UInt8] { get }
    /// The signature of `message` in the form certificates and CMS carry it (ECDSA: a DER
    /// ECDSA-Sig-Value; RSA: the k-byte signature).
    func signatureBytes(for message: [UInt8]) -> [UInt8]
}

extension P256PublicKey: X509SubjectPublicKey {}
extension RSAPublicKey: X509SubjectPublicKey {}

extension P256PrivateKey: X509SigningKey {
    /// ecdsa-with-SHA256 with no parameters, not even NULL (RFC 5758 §3.2).
    public var signatureAlgorithmIdentifier: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { $0.writeObjectIdentifier(.ecdsaWithSHA256) }
        return writer.bytes
    }

    public func signatureBytes(for message: [UInt8]) -> [UInt8] {
        signature(for: message).derRepresentation
    }
}

extension RSAPrivateKey: X509SigningKey {
    /// sha256WithRSAEncryption with NULL parameters (RFC 4055 §5: they MUST be NULL when written).
    public var signatureAlgorithmIdentifier: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence {
            $0.writeObjectIdentifier(.sha256WithRSAEncryption)
            $0.writeNull()
        }
        return writer.bytes
    }

    public func signatureBytes(for message: [UInt8]) -> [UInt8] {
        signature(for: message)
    }
}

extension X509Extension {
    /// A subject key identifier for an RSA key: the first 20 bytes of the SHA-256 of the
    /// subjectPublicKey BIT STRING's bytes (the PKCS #1 RSAPublicKey), as for P-256 keys.
    public static func keyIdentifier(for key: RSAPublicKey) -> [UInt8] {
        Array(SHA256.hash(key.pkcs1DERRepresentation).prefix(20))
    }
}
