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
        P256Scalar(unchecked: montgomeryProduct(montgomeryProduct(lhs.value, rhs.value), rSquared))
    }

    /// a·b·R^-1 mod n.
    @inline(__always)
    private static func montgomeryProduct(_ a: UInt256, _ b: UInt256) -> UInt256 {
        montgomeryReduce(a.multipliedFullWidth(by: b))
    }

    /// Montgomery reduction t·2^-256 mod n, specialised to n's top limbs (2^64 - 1 and
    /// 2^64 - 2^32): q·(n2·2^128 + n3·2^192) is q·2^192 + q·2^256 - q·2^128 - q·2^224, shifts
    /// and subtractions instead of two of each round's four multiplications.
    @inline(__always)
    private static func montgomeryReduce(_ t: UInt512) -> UInt256 {
        var x0 = t.w0
        var x1 = t.w1
        var x2 = t.w2
        var x3 = t.w3

        @inline(__always)
        func round() {
            let q = x0 &* orderInverse
            // (x + q·n)/2^64, whose low limb q·n0 + x0 clears; the result fits four limbs
            // (n < 2^256 - 2^192), so the upper three may be computed modulo 2^192.
            var carry: UInt64
            (carry, _) = UInt256.multiplyAdd(q, order.w0, x0, 0)
            (carry, x0) = UInt256.multiplyAdd(q, order.w1, x1, carry)
            // Limbs 1-3 of the result: x2 + carry + (x3 + q)·2^64 + q·2^128 - (q + q·2^96).
            let (carry0, sum0) = UInt256.addCarry(x2, carry, 0)
            let (carry1, sum1) = UInt256.addCarry(x3, q, carry0)
            let sum2 = q &+ carry1
            let (borrow0, difference0) = UInt256.subtractBorrow(sum0, q, 0)
            let (borrow1, difference1) = UInt256.subtractBorrow(sum1, q << 32, borrow0)
            x1 = difference0
            x2 = difference1
            x3 = sum2 &- (q >> 32) &- borrow1
        }
        round()
        round()
        round()
        round()
        var carry: UInt64
        (carry, x0) = UInt256.addCarry(x0, t.w4, 0)
        (carry, x1) = UInt256.addCarry(x1, t.w5, carry)
        (carry, x2) = UInt256.addCarry(x2, t.w6, carry)
        (carry, x3) = UInt256.addCarry(x3, t.w7, carry)
        // (t + Q·n)/2^256 < 2n: subtract n once unless that borrows past the carry.
        let value = UInt256(x0, x1, x2, x3)
        let (borrow, reduced) = UInt256.subtract(value, order)
        let (finalBorrow, _) = UInt256.subtractBorrow(carry, 0, borrow)
        return UInt256.select(0 &- finalBorrow, value, reduced)
    }

    /// a^(2^count)·R^-(2^count - 1) mod n: `count` Montgomery squarings.
    @inline(__always)
    private static func montgomerySquare(_ a: UInt256, times count: Int) -> UInt256 {
        var result = a
        for _ in 0..<count {
            result = montgomeryReduce(result.squaredFullWidth)
        }
        return result
    }

    /// The inverse modulo n by Fermat (self^(n-2)), in constant time, since the nonce k is
    /// secret. Zero maps to zero.
    ///
    /// The exponent is public, so the addition chain may follow its bits: the top half of
    /// n-2, ffffffff 00000000 ffffffff ffffffff, comes from x^(2^32-1) in 127 squarings and
    /// 7 multiplications, and the bottom half from sliding windows over the odd powers x, x^3,
    /// …, x^15. That is 254 squarings and 40 multiplications (a fixed 4-bit window took 256
    /// and 79); which ones run depends on n alone, never on the value being inverted.
    var inverted: P256Scalar {
        let x = Self.montgomeryProduct(value, Self.rSquared)
        let exponent = UInt256.subtract(Self.order, UInt256(2, 0, 0, 0)).1
        let result = withUnsafeTemporaryAllocation(of: UInt256.self, capacity: 8) { odd in
            // odd[i] = x^(2i+1).
            let xSquared = Self.montgomerySquare(x, times: 1)
            odd.initialize(repeating: x)
            for index in 1..<8 {
                odd[index] = Self.montgomeryProduct(odd[index - 1], xSquared)
            }
            let x4 = odd[7]  // x^(2^4 - 1)
            let x8 = Self.montgomeryProduct(Self.montgomerySquare(x4, times: 4), x4)
            let x16 = Self.montgomeryProduct(Self.montgomerySquare(x8, times: 8), x8)
            let x32 = Self.montgomeryProduct(Self.montgomerySquare(x16, times: 16), x16)
            var t = Self.montgomeryProduct(Self.montgomerySquare(x32, times: 64), x32)  // ffffffff 00000000 ffffffff
            t = Self.montgomeryProduct(Self.montgomerySquare(t, times: 32), x32)  // … ffffffff
            // The low 128 bits, most significant first: a zero bit is one squaring; a one bit
            // starts a window of at most 4 bits that ends in a one (an odd digit).
            var bit = 127
            while bit >= 0 {
                guard exponent.bit(bit) == 1 else {
                    t = Self.montgomerySquare(t, times: 1)
                    bit -= 1
                    continue
                }
                var end = Swift.max(bit - 3, 0)
                while exponent.bit(end) == 0 { end += 1 }
                let length = bit - end + 1
                let digit = Int(exponent.bits(at: end, count: length))
                t = Self.montgomeryProduct(Self.montgomerySquare(t, times: length), odd[digit >> 1])
                bit = end - 1
            }
            return t
        }
        return P256Scalar(
            unchecked: Self.montgomeryReduce(
                UInt512(w0: result.w0, w1: result.w1, w2: result.w2, w3: result.w3, w4: 0, w5: 0, w6: 0, w7: 0)))
    }
}
