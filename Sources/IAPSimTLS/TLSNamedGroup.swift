import IAPSimCrypto

/// The key-exchange groups this server accepts (RFC 8446 §4.2.7), in its order of preference.
public enum TLSNamedGroup: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    /// X25519 (RFC 7748), what most clients offer a share for first.
    case x25519 = 0x001D
    /// NIST P-256 with uncompressed points.
    case secp256r1 = 0x0017

    /// The name as RFC 8446 spells it.
    public var description: String { self == .x25519 ? "x25519" : "secp256r1" }

    /// Makes an ephemeral key pair, checks the client's share and agrees on the secret.
    /// - Parameter randomBytes: the random source (a test passes fixed bytes).
    /// - Returns: this side's public share and the shared secret.
    /// - Throws: illegal_parameter for a share of the wrong size, off the curve, or giving an
    ///   all-zero X25519 secret.
    func agree(peerShare: [UInt8], randomBytes: @escaping @Sendable (Int) -> [UInt8]) throws(TLSFailure) -> (
        share: [UInt8], secret: [UInt8]
    ) {
        switch self {
        case .x25519:
            guard peerShare.count == X25519.byteCount else {
                throw TLSFailure(.illegalParameter, "an x25519 key share is 32 bytes, not \(peerShare.count)")
            }
            let privateKey = randomBytes(X25519.byteCount)
            do {
                let share = try X25519.publicKey(privateKey: privateKey)
                return (share, try X25519.sharedSecret(privateKey: privateKey, peerPublicKey: peerShare))
            } catch {
                throw TLSFailure(.illegalParameter, "the x25519 key share is a low-order point")
            }
        case .secp256r1:
            // RFC 8446 §4.2.8.2: the uncompressed form only, validated on the curve.
            guard peerShare.count == 65, peerShare.first == 0x04,
                let peer = try? P256PublicKey(x963Representation: peerShare)
            else { throw TLSFailure(.illegalParameter, "the secp256r1 key share is not a valid uncompressed point") }
            var generator = ByteSourceGenerator(randomBytes: randomBytes)
            guard let privateKey = try? P256PrivateKey.generate(using: &generator),
                let secret = try? privateKey.sharedSecret(with: peer)
            else { throw TLSFailure(.internalError, "no secp256r1 key could be made") }
            return (privateKey.publicKey.x963Representation, secret)
        }
    }
}

/// A `RandomNumberGenerator` drawing from a byte source, for `P256PrivateKey.generate`.
struct ByteSourceGenerator: RandomNumberGenerator {
    let randomBytes: @Sendable (Int) -> [UInt8]

    mutating func next() -> UInt64 {
        randomBytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
