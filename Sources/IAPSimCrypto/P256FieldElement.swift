/// An element of the P-256 base field GF(p), p = 2^256 - 2^224 + 2^192 + 2^96 - 1, held in
/// Montgomery form (value·2^256 mod p) and always fully reduced.
///
/// Montgomery form turns every multiplication into a product and a reduction with no
/// division. The reduction in `*` and `squared` is specialised to p's limbs (-p^-1 ≡ 1 mod
/// 2^64, a zero limb), which halves its work; conversions in and out use the generic routine.
struct P256FieldElement: Equatable, Sendable {
    /// The Montgomery representative value·R mod p.
    var limbs: UInt256

    @inline(__always)
    init(montgomery limbs: UInt256) {
        self.limbs = limbs
    }

    static let modulus = UInt256(
        0xffff_ffff_ffff_ffff, 0x0000_0000_ffff_ffff, 0x0000_0000_0000_0000, 0xffff_ffff_0000_0001)
    /// -p^-1 mod 2^64.
    static let modulusInverse: UInt64 = 1
    /// R^2 mod p, to move a plain integer into Montgomery form.
    static let rSquared = UInt256(
        0x0000_0000_0000_0003, 0xffff_fffb_ffff_ffff, 0xffff_ffff_ffff_fffe, 0x0000_0004_ffff_fffd)

    static let zero = P256FieldElement(montgomery: .zero)
    static let one = P256FieldElement(
        montgomery: UInt256(0x0000_0000_0000_0001, 0xffff_ffff_0000_0000, 0xffff_ffff_ffff_ffff, 0x0000_0000_ffff_fffe))
    /// The curve coefficient b in Montgomery form.
    static let curveB = P256FieldElement(
        montgomery: UInt256(0xd89c_df62_29c4_bddf, 0xacf0_05cd_7884_3090, 0xe5a2_20ab_f721_2ed6, 0xdc30_061d_0487_4834))

    /// Converts a plain integer; returns nil unless it is below p (the canonical encoding).
    init?(integer: UInt256) {
        guard integer < Self.modulus else { return nil }
        limbs = UInt256.montgomeryMultiply(integer, Self.rSquared, Self.modulus, Self.modulusInverse)
    }

    /// Reads a canonical 32-byte big-endian coordinate.
    init?(bigEndianBytes bytes: some Collection<UInt8>) {
        guard let integer = UInt256(bigEndianBytes: bytes) else { return nil }
        self.init(integer: integer)
    }

    /// The plain integer, out of Montgomery form.
    var integer: UInt256 {
        UInt256.montgomeryMultiply(limbs, UInt256(1, 0, 0, 0), Self.modulus, Self.modulusInverse)
    }

    var bigEndianBytes: [UInt8] { integer.bigEndianBytes }

    var isZero: Bool { limbs.isZero }

    /// Montgomery product: the full 512-bit product, then the reduction specialised to p.
    @inline(__always)
    static func * (lhs: P256FieldElement, rhs: P256FieldElement) -> P256FieldElement {
        P256FieldElement(montgomery: montgomeryReduce(lhs.limbs.multipliedFullWidth(by: rhs.limbs)))
    }

    /// The value (carry·2^256 + t), known to be below 2p, reduced below p without branching.
    @inline(__always)
    private static func reduceOnce(
        _ t0: UInt64, _ t1: UInt64, _ t2: UInt64, _ t3: UInt64, carry: UInt64
    ) -> UInt256 {
        let value = UInt256(t0, t1, t2, t3)
        let (borrow, reduced) = UInt256.subtract(value, modulus)
        let (finalBorrow, _) = UInt256.subtractBorrow(carry, 0, borrow)
        return UInt256.select(0 &- finalBorrow, value, reduced)
    }

    /// Montgomery reduction of a 512-bit product t, t·2^-256 mod p, specialised to p's form
    /// 2^256 - 2^224 + 2^192 + 2^96 - 1: since -p^-1 ≡ 1 (mod 2^64) the quotient digit q is
    /// the low limb itself, and q·p is shifts, additions and subtractions, with no
    /// multiplication at all (each round used two).
    @inline(__always)
    private static func montgomeryReduce(_ t: UInt512) -> UInt256 {
        var x0 = t.w0
        var x1 = t.w1
        var x2 = t.w2
        var x3 = t.w3

        @inline(__always)
        func round() {
            let q = x0
            // (x + q·p)/2^64: -q cancels x0, q·2^96 adds q<<32 and q>>32 to the next two
            // limbs, q·2^192 and q·2^256 add q to the top two, and -q·2^224 takes q<<32 and
            // q>>32 from them. The result fits four limbs, so the top may wrap freely.
            let (carry0, sum0) = UInt256.addCarry(x1, q << 32, 0)
            let (carry1, sum1) = UInt256.addCarry(x2, q >> 32, carry0)
            let (carry2, sum2) = UInt256.addCarry(x3, q, carry1)
            let (borrow, difference2) = UInt256.subtractBorrow(sum2, q << 32, 0)
            x0 = sum0
            x1 = sum1
            x2 = difference2
            x3 = q &+ carry2 &- (q >> 32) &- borrow
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
        return reduceOnce(x0, x1, x2, x3, carry: carry)
    }

    @inline(__always)
    static func + (lhs: P256FieldElement, rhs: P256FieldElement) -> P256FieldElement {
        P256FieldElement(montgomery: UInt256.addModulo(lhs.limbs, rhs.limbs, modulus))
    }

    @inline(__always)
    static func - (lhs: P256FieldElement, rhs: P256FieldElement) -> P256FieldElement {
        P256FieldElement(montgomery: UInt256.subtractModulo(lhs.limbs, rhs.limbs, modulus))
    }

    /// self²: the full square (10 limb multiplications instead of 16), then reduced.
    @inline(__always)
    var squared: P256FieldElement {
        P256FieldElement(montgomery: Self.montgomeryReduce(limbs.squaredFullWidth))
    }

    @inline(__always)
    var doubled: P256FieldElement { self + self }

    @inline(__always)
    var negated: P256FieldElement { Self.zero - self }

    /// self^(2^count), by repeated squaring.
    @inline(__always)
    func squared(times count: Int) -> P256FieldElement {
        var result = self
        for _ in 0..<count { result = result.squared }
        return result
    }

    /// The multiplicative inverse by Fermat (self^(p-2)); zero maps to zero.
    ///
    /// The addition chain follows p-2's bit pattern (runs of ones of length 32 and 30):
    /// 255 squarings and 12 multiplications, in constant time.
    var inverted: P256FieldElement {
        let x1 = self
        let x2 = x1.squared * x1
        let x4 = x2.squared(times: 2) * x2
        let x8 = x4.squared(times: 4) * x4
        let x16 = x8.squared(times: 8) * x8
        let x24 = x16.squared(times: 8) * x8
        let x28 = x24.squared(times: 4) * x4
        let x30 = x28.squared(times: 2) * x2
        let x32 = x30.squared(times: 2) * x2
        var t = x32.squared(times: 32) * x1  // ffffffff 00000001
        t = t.squared(times: 128) * x32  // ... 00000000 00000000 00000000 ffffffff
        t = t.squared(times: 32) * x32  // ... ffffffff
        t = t.squared(times: 30) * x30  // ... 30 ones
        t = t.squared(times: 2) * x1  // ... 01, ending in fffffffd
        return t
    }

    /// Picks `a` where `mask` is all-ones and `b` where it is zero.
    @inline(__always)
    static func select(_ mask: UInt64, _ a: P256FieldElement, _ b: P256FieldElement) -> P256FieldElement {
        P256FieldElement(montgomery: UInt256.select(mask, a.limbs, b.limbs))
    }
}
