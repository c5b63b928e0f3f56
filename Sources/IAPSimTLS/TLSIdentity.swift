import IAPSimCrypto

/// What a server proves itself with: a certificate chain (leaf first, DER) and the leaf's
/// P-256 private key, which signs CertificateVerify with ecdsa_secp256r1_sha256.
public struct TLSIdentity: Sendable {
    /// DER certificates, the leaf first; the root may be left out, as clients hold it.
    public var certificateChain: [[UInt8]]
    /// The private key of the leaf certificate.
    public var privateKey: P256PrivateKey

    /// Pairs a chain with its leaf's key.
    public init(certificateChain: [[UInt8]], privateKey: P256PrivateKey) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}
