/// Deterministic ECDSA nonces (RFC 6979 §3.2) for P-256 with HMAC-SHA-256.
///
/// The nonce depends only on the key and the digest, so signing needs no random source and
/// a broken one cannot leak the key; the known answers of RFC 6979 A.2.5 pin it down.
///
/// The DRBG's key K is held as an HMAC already keyed with it (both padded key blocks
/// hashed), copied for every code computed under that K: each K is used twice, and the
/// initial all-zero K is the same for every signature, so this hashes 16 blocks per
/// signature instead of 24.
struct RFC6979Nonce {
    private var keyed: HMACSHA256
    private var value: [UInt8]
    private var hasProducedCandidate = false

    /// HMAC keyed with the initial K = 0x00 0x00 … 0x00 (step c).
    private static let initialKey = HMACSHA256(key: [UInt8](repeating: 0x00, count: 32))

    /// Seeds the HMAC-DRBG with int2octets(x) and bits2octets(h1) (steps b–g).
    init(privateKey: P256Scalar, digest: [UInt8]) {
        let x = privateKey.bigEndianBytes
        // With a 256-bit hash and a 256-bit order, bits2octets(h1) is just h1 mod n.
        let h = P256Scalar(digest: digest).bigEndianBytes
        value = [UInt8](repeating: 0x01, count: 32)
        keyed = Self.initialKey
        keyed = HMACSHA256(key: Self.code(keyed, value, [0x00], x, h))
        value = Self.code(keyed, value)
        keyed = HMACSHA256(key: Self.code(keyed, value, [0x01], x, h))
        value = Self.code(keyed, value)
    }

    /// HMAC_K(parts concatenated), for the K that `keyed` holds.
    private static func code(_ keyed: HMACSHA256, _ parts: [UInt8]...) -> [UInt8] {
        var mac = keyed
        for part in parts { mac.update(part) }
        return mac.finalize()
    }

    /// The next candidate k in [1, n-1] (step h). A call after the first also performs the
    /// K = HMAC_K(V‖0x00), V = HMAC_K(V) update the RFC prescribes when a k is rejected
    /// (for instance because it produced r = 0 or s = 0).
    mutating func next() -> P256Scalar {
        while true {
            if hasProducedCandidate {
                keyed = HMACSHA256(key: Self.code(keyed, value, [0x00]))
                value = Self.code(keyed, value)
            }
            hasProducedCandidate = true
            value = Self.code(keyed, value)
            if let candidate = P256Scalar(bigEndianBytes: value), !candidate.isZero {
                return candidate
            }
        }
    }
}
