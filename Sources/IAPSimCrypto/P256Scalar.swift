/// An integer modulo the P-256 group order n, kept as its plain value in [0, n).
///
/// Scalars are mostly read bit by bit (for point multiplication) and multiplied only a few
/// times per signature, so the plain form is stored and Montgomery form is used inside `*`
/// and `inverted` only.
struct P256Scalar: Equatable, Sendable {
    var value: UInt256

    static let order = UInt256(
        0xf3b9_cac2_fc63_2551, 0xbce6_faad_a717_9e84, 0xffff_ffff_ffff_ffff, 0xffff_ffff_0000_0000)
    /// -n^-1 mod 2^64.
    static let orderInverse: UInt64 = 0xccd1_c8aa_ee00_bc4f
    /// R^2 mod n.
    static let rSquared = UInt256(
        0x8324_4c95_be79_eea2, 0x4699_799c_49bd_6fa6, 0x2845_b239_2b6b_ec59, 0x66e1_2d94_f3d9_5620)
    /// R mod n: one in Montgomery form.
    static let montgomeryOne = UInt256(
        0x0c46_353d_039c_daaf, 0x4319_0552_58e8_617b, 0x0000_0000_0000_0000, 0x0000_0000_ffff_ffff)

    static let zero = P256Scalar(unchecked: .zero)

    @inline(__always)
    init(unchecked value: UInt256) {
        self.value = value
    }

    /// Accepts only integers in [0, n).
    init?(integer: UInt256) {
        guard integer < Self.order else { return nil }
        value = integer
    }

    /// Reads exactly 32 big-endian bytes as an integer in [0, n); nil otherwise.
    init?(bigEndianBytes bytes: some Collection<UInt8>) {
        guard let integer = UInt256(bigEndianBytes: bytes) else { return nil }
        self.init(integer: integer)
    }

    /// Reduces any 256-bit integer modulo n; one subtraction suffices because 2^256 < 2n.
    init(reducing integer: UInt256) {
        let (borrow, reduced) = UInt256.subtract(integer, Self.order)
        value = UInt256.select(0 &- borrow, integer, reduced)
    }

    /// The ECDSA message representative: the 32-byte digest as an integer, reduced mod n
    /// (SEC 1 §4.1.3 step 5: for a 256-bit hash and a 256-bit n no bits are dropped).
    init(digest: [UInt8]) {
        self.init(reducing: UInt256(bigEndianBytes: digest) ?? .zero)
    }

    var bigEndianBytes: [UInt8] { value.bigEndianBytes }

    var isZero: Bool { value.isZero }

    static func + (lhs: P256Scalar, rhs: P256Scalar) -> P256Scalar {
        P256Scalar(unchecked: UInt256.addModulo(lhs.value, rhs.value, order))
    }

    static func * (lhs: P256Scalar, rhs: P256Scalar) -> P256Scalar {
        // REDC(REDC(a·b)·R^2) = a·b: two passes keep both operands and the result in plain form.
        let reduced = UInt256.montgomeryMultiply(lhs.value, rhs.value, order, orderInverse)
        return P256Scalar(unchecked: UInt256.montgomeryMultiply(reduced, rSquared, order, orderInverse))
    }

    /// The inverse modulo n by Fermat (self^(n-2)), with a fixed 4-bit window: constant time,
    /// since the nonce k is secret. Zero maps to zero.
    var inverted: P256Scalar {
        let m = Self.order
        let mInverse = Self.orderInverse
        let base = UInt256.montgomeryMultiply(value, Self.rSquared, m, mInverse)
        // powers[i] = base^i in Montgomery form, i = 0..15.
        var powers = [UInt256](repeating: Self.montgomeryOne, count: 16)
        for index in 1..<16 {
            powers[index] = UInt256.montgomeryMultiply(powers[index - 1], base, m, mInverse)
        }
        let exponent = UInt256.subtract(m, UInt256(2, 0, 0, 0)).1
        var result = Self.montgomeryOne
        var window = 63
        while window >= 0 {
            for _ in 0..<4 {
                result = UInt256.montgomeryMultiply(result, result, m, mInverse)
            }
            // The exponent n-2 is public, so indexing by its digits leaks nothing.
            let digit = Int(exponent.bits(at: window * 4, count: 4))
            result = UInt256.montgomeryMultiply(result, powers[digit], m, mInverse)
            window -= 1
        }
        return P256Scalar(unchecked: UInt256.montgomeryMultiply(result, UInt256(1, 0, 0, 0), m, mInverse))
    }
}
