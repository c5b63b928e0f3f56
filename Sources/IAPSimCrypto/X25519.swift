/// X25519 Diffie-Hellman (RFC 7748 §5 and §6.1), the key exchange most TLS 1.3 clients offer
/// first.
///
/// Hand-written, for test data only. The Montgomery ladder runs the same 255 steps with
/// masked swaps whatever the scalar, and the field arithmetic has no secret-dependent
/// branches or indices.
public enum X25519 {
    /// The length of private keys, public keys and shared secrets in bytes.
    public static let byteCount = 32
    /// The u-coordinate of the base point, 9.
    public static let basePoint: [UInt8] = [9] + [UInt8](repeating: 0, count: 31)

    /// The RFC 7748 function X25519(k, u): the scalar `k` (clamped here) times the point with
    /// u-coordinate `u` (top bit ignored, non-canonical values reduced).
    /// - Returns: the 32-byte u-coordinate of the product; all zeros for a low-order `u`.
    /// - Throws: `CryptoError.invalidKeyLength` unless both are 32 bytes.
    public static func scalarMultiply(scalar k: [UInt8], point u: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard k.count == byteCount else { throw .invalidKeyLength(k.count) }
        guard u.count == byteCount else { throw .invalidKeyLength(u.count) }
        var scalar = k
        scalar[0] &= 248
        scalar[31] &= 127
        scalar[31] |= 64
        let x1 = Curve25519FieldElement(bytes: u)
        var x2 = Curve25519FieldElement.one
        var z2 = Curve25519FieldElement.zero
        var x3 = x1
        var z3 = Curve25519FieldElement.one
        var swap: UInt64 = 0
        for position in stride(from: 254, through: 0, by: -1) {
            let bit = UInt64(scalar[position >> 3] >> UInt8(position & 7) & 1)
            swap ^= bit
            Curve25519FieldElement.swap(&x2, &x3, bit: swap)
            Curve25519FieldElement.swap(&z2, &z3, bit: swap)
            swap = bit
            let a = x2 + z2
            let aa = a.squared
            let b = x2 - z2
            let bb = b.squared
            let e = aa - bb
            let c = x3 + z3
            let d = x3 - z3
            let da = d * a
            let cb = c * b
            x3 = (da + cb).squared
            z3 = x1 * (da - cb).squared
            x2 = aa * bb
            z2 = e * (aa + e.timesA24)
        }
        Curve25519FieldElement.swap(&x2, &x3, bit: swap)
        Curve25519FieldElement.swap(&z2, &z3, bit: swap)
        return (x2 * z2.inverted).bytes
    }

    /// The public key of `privateKey`: X25519(privateKey, 9).
    /// - Throws: `CryptoError.invalidKeyLength` unless it is 32 bytes.
    public static func publicKey(privateKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try scalarMultiply(scalar: privateKey, point: basePoint)
    }

    /// The shared secret of a key exchange, refusing the all-zero result a low-order peer key
    /// gives (RFC 7748 §6.1; RFC 8446 §7.4.2 requires the check).
    /// - Throws: `CryptoError.invalidKeyLength`, or `CryptoError.invalidSharedSecret` for all zeros.
    public static func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        let shared = try scalarMultiply(scalar: privateKey, point: peerPublicKey)
        var accumulated: UInt8 = 0
        for byte in shared { accumulated |= byte }
        guard accumulated != 0 else { throw .invalidSharedSecret("X25519 gave all zeros (a low-order public key)") }
        return shared
    }
}
