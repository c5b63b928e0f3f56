/// Deterministic ECDSA nonces (RFC 6979 §3.2) for P-256 with HMAC-SHA-256.
///
/// The nonce depends only on the key and the digest, so signing needs no random source and
/// a broken one cannot leak the key; the known answers of RFC 6979 A.2.5 pin it down.
struct RFC6979Nonce {
    private var key: [UInt8]
    private var value: [UInt8]
    private var hasProducedCandidate = false

    /// Seeds the HMAC-DRBG with int2octets(x) and bits2octets(h1) (steps b–g).
    init(privateKey: P256Scalar, digest: [UInt8]) {
        let x = privateKey.bigEndianBytes
        // With a 256-bit hash and a 256-bit order, bits2octets(h1) is just h1 mod n.
        let h = P256Scalar(digest: digest).bigEndianBytes
        value = [UInt8](repeating: 0x01, count: 32)
        key = [UInt8](repeating: 0x00, count: 32)
        key = HMACSHA256.authenticationCode(for: value + [0x00] + x + h, key: key)
        value = HMACSHA256.authenticationCode(for: value, key: key)
        key = HMACSHA256.authenticationCode(for: value + [0x01] + x + h, key: key)
        value = HMACSHA256.authenticationCode(for: value, key: key)
    }

    /// The next candidate k in [1, n-1] (step h). A call after the first also performs the
    /// K = HMAC_K(V‖0x00), V = HMAC_K(V) update the RFC prescribes when a k is rejected
    /// (for instance because it produced r = 0 or s = 0).
    mutating func next() -> P256Scalar {
        while true {
            if hasProducedCandidate {
                key = HMACSHA256.authenticationCode(for: value + [0x00], key: key)
                value = HMACSHA256.authenticationCode(for: value, key: key)
            }
            hasProducedCandidate = true
            value = HMACSHA256.authenticationCode(for: value, key: key)
            if let candidate = P256Scalar(bigEndianBytes: value), !candidate.isZero {
                return candidate
            }
        }
    }
}
