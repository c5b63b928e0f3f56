/// Elliptic-curve Diffie-Hellman on P-256 (SEC 1 §3.3.1), for TLS 1.3's secp256r1 key share.
///
/// Hand-written, for test data only: d·Q runs the variable-time wNAF multiplication the
/// verifier uses, so timing depends on the (ephemeral) scalar. Acceptable for a simulator's
/// throwaway keys; not for secrets that matter.
extension P256PrivateKey {
    /// The x-coordinate of d·Q, 32 big-endian bytes: the TLS 1.3 shared secret (RFC 8446 §7.4.2).
    ///
    /// `publicKey` was validated on the curve when it was made, and P-256 has cofactor 1, so
    /// d·Q is never infinity for d in [1, n−1]; the check stays as a guard.
    /// - Throws: `CryptoError.invalidSharedSecret` if the product is the point at infinity.
    public func sharedSecret(with publicKey: P256PublicKey) throws(CryptoError) -> [UInt8] {
        guard let product = P256LinearCombination.multiply(scalar, publicKey.point).affine else {
            throw .invalidSharedSecret("d·Q is the point at infinity")
        }
        return product.x.integer.bigEndianBytes
    }
}
