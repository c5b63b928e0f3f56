/// A P-256 private key (a scalar d in [1, n-1]) with its public key, for ECDSA signing.
///
/// Signatures use RFC 6979 deterministic nonces, and k·G runs in constant time over a
/// precomputed table, so signing needs no randomness and leaks no key bits through branches.
public struct P256PrivateKey: Sendable {
    let scalar: P256Scalar
    /// The matching public key d·G.
    public let publicKey: P256PublicKey

    init(scalar: P256Scalar) throws(CryptoError) {
        guard !scalar.isZero, let point = P256BasePointTable.shared.multiply(scalar).affine else {
            throw .invalidPrivateKey("the scalar is zero")
        }
        self.scalar = scalar
        publicKey = P256PublicKey(point: point)
    }

    /// Reads the 32-byte big-endian scalar.
    /// - Throws: `CryptoError.invalidPrivateKey` unless it is 32 bytes and in [1, n-1].
    public init(rawRepresentation: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(rawRepresentation)
        guard bytes.count == 32 else {
            throw .invalidPrivateKey("a raw P-256 private key is 32 bytes, not \(bytes.count)")
        }
        guard let scalar = P256Scalar(bigEndianBytes: bytes), !scalar.isZero else {
            throw .invalidPrivateKey("the scalar is not in [1, n-1]")
        }
        try self.init(scalar: scalar)
    }

    /// The 32-byte big-endian scalar.
    public var rawRepresentation: [UInt8] { scalar.bigEndianBytes }

    /// Generates a key from the system's cryptographic random source.
    /// - Throws: `CryptoError.randomSourceFailed` only if the source is broken.
    public static func generate() throws(CryptoError) -> P256PrivateKey {
        var generator = SystemRandomNumberGenerator()
        return try generate(using: &generator)
    }

    /// Generates a key from `generator` by rejection sampling: 32 random bytes are drawn
    /// until they form an integer in [1, n-1] (almost always the first time), which keeps
    /// the distribution uniform where reducing mod n would not.
    ///
    /// Pass a seeded generator for reproducible tests; use the system one otherwise.
    /// - Throws: `CryptoError.randomSourceFailed` after 128 rejections in a row (a
    ///   generator stuck on a constant), instead of looping forever.
    public static func generate<Generator: RandomNumberGenerator>(
        using generator: inout Generator
    ) throws(CryptoError) -> P256PrivateKey {
        for _ in 0..<128 {
            let candidate = UInt256(generator.next(), generator.next(), generator.next(), generator.next())
            if let scalar = P256Scalar(integer: candidate), !scalar.isZero {
                return try P256PrivateKey(scalar: scalar)
            }
        }
        throw .randomSourceFailed
    }

    /// Signs SHA-256(`message`) (ES256 signs the JWS signing input this way).
    public func signature(for message: some Sequence<UInt8>) -> ECDSASignature {
        sign(digest: SHA256.hash(message))
    }

    /// Signs the digest of a message part of which was hashed ahead (`ES256.Header`).
    func signature(finishing hasher: SHA256) -> ECDSASignature {
        sign(digest: hasher.finalize())
    }

    /// Signs a precomputed 32-byte SHA-256 digest.
    /// - Throws: `CryptoError.invalidDigestLength` for any other length.
    public func signature(digest: some Collection<UInt8>) throws(CryptoError) -> ECDSASignature {
        let bytes = Array(digest)
        guard bytes.count == SHA256.byteCount else { throw .invalidDigestLength(bytes.count) }
        return sign(digest: bytes)
    }

    /// SEC 1 §4.1.3 signing with the RFC 6979 nonce sequence.
    private func sign(digest: [UInt8]) -> ECDSASignature {
        let e = P256Scalar(digest: digest)
        var nonces = RFC6979Nonce(privateKey: scalar, digest: digest)
        while true {
            let k = nonces.next()
            guard let x = P256BasePointTable.shared.multiply(k).affineX else { continue }
            let r = P256Scalar(reducing: x.integer)
            guard !r.isZero else { continue }
            let s = k.inverted * (e + r * scalar)
            guard !s.isZero else { continue }
            return ECDSASignature(r: r.value, s: s.value)
        }
    }
}
