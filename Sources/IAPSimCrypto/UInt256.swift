/// A 256-bit unsigned integer as four 64-bit limbs, least significant first, with the
/// modular primitives the P-256 field and scalar types share.
///
/// Plain stored properties (not an array or tuple) keep the limbs in registers and make the
/// arithmetic allocation-free. Everything here is branch-free on limb values so that signing
/// does not leak the secret scalar through timing.
struct UInt256: Equatable, Sendable {
    var w0: UInt64
    var w1: UInt64
    var w2: UInt64
    var w3: UInt64

    @inline(__always)
    init(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) {
        self.w0 = w0
        self.w1 = w1
        self.w2 = w2
        self.w3 = w3
    }

    static let zero = UInt256(0, 0, 0, 0)

    /// Reads exactly 32 big-endian bytes; returns nil for any other length.
    init?(bigEndianBytes bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var limbs: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in bytes.enumerated() {
            let limb = 3 - index / 8
            limbs[limb] = limbs[limb] << 8 | UInt64(byte)
        }
        self.init(limbs[0], limbs[1], limbs[2], limbs[3])
    }

    /// The 32-byte big-endian encoding.
    var bigEndianBytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        for (limbIndex, limb) in [w3, w2, w1, w0].enumerated() {
            for byteIndex in 0..<8 {
                bytes[limbIndex * 8 + byteIndex] = UInt8(truncatingIfNeeded: limb >> UInt64(56 - 8 * byteIndex))
            }
        }
        return bytes
    }

    var isZero: Bool { (w0 | w1 | w2 | w3) == 0 }

    /// Bit `index` (0 = least significant) as 0 or 1.
    @inline(__always)
    func bit(_ index: Int) -> UInt64 {
        let limb: UInt64
        switch index >> 6 {
        case 0: limb = w0
        case 1: limb = w1
        case 2: limb = w2
        default: limb = w3
        }
        return (limb >> UInt64(index & 63)) & 1
    }

    /// `count` bits (at most 8, not crossing into a fifth limb) starting at bit `index`.
    @inline(__always)
    func bits(at index: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for offset in 0..<count where index + offset < 256 {
            value |= bit(index + offset) << UInt64(offset)
        }
        return value
    }

    /// Compares as integers (variable time: use only on public values).
    static func < (lhs: UInt256, rhs: UInt256) -> Bool {
        if lhs.w3 != rhs.w3 { return lhs.w3 < rhs.w3 }
        if lhs.w2 != rhs.w2 { return lhs.w2 < rhs.w2 }
        if lhs.w1 != rhs.w1 { return lhs.w1 < rhs.w1 }
        return lhs.w0 < rhs.w0
    }

    /// Picks `a` where `mask` is all-ones and `b` where it is zero.
    @inline(__always)
    static func select(_ mask: UInt64, _ a: UInt256, _ b: UInt256) -> UInt256 {
        UInt256(
            (a.w0 & mask) | (b.w0 & ~mask), (a.w1 & mask) | (b.w1 & ~mask),
            (a.w2 & mask) | (b.w2 & ~mask), (a.w3 & mask) | (b.w3 & ~mask))
    }

    // MARK: - Limb primitives

    /// A carry flag as 0 or 1.
    ///
    /// A bit cast rather than `flag ? 1 : 0`: with constant operands the optimizer turned the
    /// conditional form into branches (36 in one field multiplication), which were slower and
    /// made timing depend on the data.
    @inline(__always)
    static func carryValue(_ flag: Bool) -> UInt64 {
        UInt64(unsafeBitCast(flag, to: UInt8.self))
    }

    /// a·b + c + d as (high, low); never overflows 128 bits.
    @inline(__always)
    static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (UInt64, UInt64) {
        let product = a.multipliedFullWidth(by: b)
        let (low1, carry1) = product.low.addingReportingOverflow(c)
        let high1 = product.high &+ carryValue(carry1)
        let (low2, carry2) = low1.addingReportingOverflow(d)
        return (high1 &+ carryValue(carry2), low2)
    }

    /// a + b + carry as (carry out, sum).
    @inline(__always)
    static func addCarry(_ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (UInt64, UInt64) {
        let (sum1, overflow1) = a.addingReportingOverflow(b)
        let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
        return (carryValue(overflow1) | carryValue(overflow2), sum2)
    }

    /// a - b - borrow as (borrow out, difference).
    @inline(__always)
    static func subtractBorrow(_ a: UInt64, _ b: UInt64, _ borrow: UInt64) -> (UInt64, UInt64) {
        let (difference1, overflow1) = a.subtractingReportingOverflow(b)
        let (difference2, overflow2) = difference1.subtractingReportingOverflow(borrow)
        return (carryValue(overflow1) | carryValue(overflow2), difference2)
    }

    /// a + b as (carry, sum).
    @inline(__always)
    static func add(_ a: UInt256, _ b: UInt256) -> (UInt64, UInt256) {
        let (c0, s0) = addCarry(a.w0, b.w0, 0)
        let (c1, s1) = addCarry(a.w1, b.w1, c0)
        let (c2, s2) = addCarry(a.w2, b.w2, c1)
        let (c3, s3) = addCarry(a.w3, b.w3, c2)
        return (c3, UInt256(s0, s1, s2, s3))
    }

    /// a - b as (borrow, difference mod 2^256).
    @inline(__always)
    static func subtract(_ a: UInt256, _ b: UInt256) -> (UInt64, UInt256) {
        let (b0, d0) = subtractBorrow(a.w0, b.w0, 0)
        let (b1, d1) = subtractBorrow(a.w1, b.w1, b0)
        let (b2, d2) = subtractBorrow(a.w2, b.w2, b1)
        let (b3, d3) = subtractBorrow(a.w3, b.w3, b2)
        return (b3, UInt256(d0, d1, d2, d3))
    }

    // MARK: - Modular arithmetic (inputs must already be reduced below `modulus`)

    /// (a + b) mod m.
    @inline(__always)
    static func addModulo(_ a: UInt256, _ b: UInt256, _ m: UInt256) -> UInt256 {
        let (carry, sum) = add(a, b)
        let (borrow, reduced) = subtract(sum, m)
        // Keep the unreduced sum only when it was below m: no carry out and a borrow.
        let keepSum = (borrow & ~carry & 1) &* UInt64.max
        return select(keepSum, sum, reduced)
    }

    /// (a - b) mod m.
    @inline(__always)
    static func subtractModulo(_ a: UInt256, _ b: UInt256, _ m: UInt256) -> UInt256 {
        let (borrow, difference) = subtract(a, b)
        let mask = 0 &- borrow
        let correction = UInt256(m.w0 & mask, m.w1 & mask, m.w2 & mask, m.w3 & mask)
        return add(difference, correction).1
    }

    /// Montgomery product a·b·2^-256 mod m (CIOS), for odd m < 2^256 and a, b < m.
    ///
    /// `mInverse` is -m^-1 mod 2^64. The result is fully reduced, so equal values have equal limbs.
    @inline(__always)
    static func montgomeryMultiply(_ a: UInt256, _ b: UInt256, _ m: UInt256, _ mInverse: UInt64) -> UInt256 {
        var t0: UInt64 = 0
        var t1: UInt64 = 0
        var t2: UInt64 = 0
        var t3: UInt64 = 0
        var t4: UInt64 = 0

        @inline(__always)
        func round(_ bi: UInt64) {
            var carry: UInt64
            (carry, t0) = multiplyAdd(a.w0, bi, t0, 0)
            (carry, t1) = multiplyAdd(a.w1, bi, t1, carry)
            (carry, t2) = multiplyAdd(a.w2, bi, t2, carry)
            (carry, t3) = multiplyAdd(a.w3, bi, t3, carry)
            let (t5, t4Sum) = addCarry(t4, carry, 0)
            let q = t0 &* mInverse
            (carry, _) = multiplyAdd(q, m.w0, t0, 0)
            (carry, t0) = multiplyAdd(q, m.w1, t1, carry)
            (carry, t1) = multiplyAdd(q, m.w2, t2, carry)
            (carry, t2) = multiplyAdd(q, m.w3, t3, carry)
            let (top, t3Sum) = addCarry(t4Sum, carry, 0)
            t3 = t3Sum
            t4 = t5 &+ top
        }
        round(b.w0)
        round(b.w1)
        round(b.w2)
        round(b.w3)

        // t < 2m: subtract m once unless that borrows past the fifth limb.
        let (borrow, reduced) = subtract(UInt256(t0, t1, t2, t3), m)
        let (finalBorrow, _) = subtractBorrow(t4, 0, borrow)
        let keep = 0 &- finalBorrow
        return select(keep, UInt256(t0, t1, t2, t3), reduced)
    }
}
