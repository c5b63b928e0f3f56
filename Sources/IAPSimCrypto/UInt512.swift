/// A 512-bit unsigned integer as eight 64-bit limbs, least significant first: the full
/// product of two `UInt256`s, before a Montgomery reduction brings it back to 256 bits.
///
/// Like `UInt256`, plain stored properties keep it in registers, and everything here is
/// branch-free on limb values.
struct UInt512: Sendable {
    var w0: UInt64
    var w1: UInt64
    var w2: UInt64
    var w3: UInt64
    var w4: UInt64
    var w5: UInt64
    var w6: UInt64
    var w7: UInt64
}

extension UInt256 {
    /// self·other, all 512 bits.
    ///
    /// Product scanning: the limb products are summed column by column into a three-limb
    /// accumulator, which LLVM lowers to one add/adc/adc per product with the carries kept in
    /// flags. (Row by row, each product carried two separately materialised carries.)
    @inline(__always)
    func multipliedFullWidth(by other: UInt256) -> UInt512 {
        let a = self
        let b = other
        var c0: UInt64 = 0
        var c1: UInt64 = 0
        var c2: UInt64 = 0

        @inline(__always)
        func add(_ x: UInt64, _ y: UInt64) {
            let product = x.multipliedFullWidth(by: y)
            let (low, lowCarry) = c0.addingReportingOverflow(product.low)
            // product.high ≤ 2^64 - 2, so adding the carry cannot wrap.
            let (middle, middleCarry) = c1.addingReportingOverflow(product.high &+ UInt256.carryValue(lowCarry))
            c0 = low
            c1 = middle
            c2 &+= UInt256.carryValue(middleCarry)
        }
        @inline(__always)
        func column() -> UInt64 {
            let finished = c0
            c0 = c1
            c1 = c2
            c2 = 0
            return finished
        }
        add(a.w0, b.w0)
        let t0 = column()
        add(a.w0, b.w1)
        add(a.w1, b.w0)
        let t1 = column()
        add(a.w0, b.w2)
        add(a.w1, b.w1)
        add(a.w2, b.w0)
        let t2 = column()
        add(a.w0, b.w3)
        add(a.w1, b.w2)
        add(a.w2, b.w1)
        add(a.w3, b.w0)
        let t3 = column()
        add(a.w1, b.w3)
        add(a.w2, b.w2)
        add(a.w3, b.w1)
        let t4 = column()
        add(a.w2, b.w3)
        add(a.w3, b.w2)
        let t5 = column()
        add(a.w3, b.w3)
        return UInt512(w0: t0, w1: t1, w2: t2, w3: t3, w4: t4, w5: t5, w6: c0, w7: c1)
    }

    /// self², all 512 bits, with each cross product a_i·a_j computed once and doubled (10 limb
    /// multiplications instead of 16).
    @inline(__always)
    var squaredFullWidth: UInt512 {
        let a = self
        var high: UInt64
        var r1: UInt64
        var r2: UInt64
        var r3: UInt64
        var r4: UInt64
        var r5: UInt64
        var r6: UInt64
        var r7: UInt64
        (high, r1) = a.w0.multipliedFullWidth(by: a.w1)
        (high, r2) = UInt256.multiplyAdd(a.w0, a.w2, high, 0)
        (r4, r3) = UInt256.multiplyAdd(a.w0, a.w3, high, 0)
        (high, r3) = UInt256.multiplyAdd(a.w1, a.w2, r3, 0)
        (r5, r4) = UInt256.multiplyAdd(a.w1, a.w3, r4, high)
        (r6, r5) = UInt256.multiplyAdd(a.w2, a.w3, r5, 0)
        r7 = r6 >> 63
        r6 = r6 << 1 | r5 >> 63
        r5 = r5 << 1 | r4 >> 63
        r4 = r4 << 1 | r3 >> 63
        r3 = r3 << 1 | r2 >> 63
        r2 = r2 << 1 | r1 >> 63
        r1 <<= 1
        let s0 = a.w0.multipliedFullWidth(by: a.w0)
        let s1 = a.w1.multipliedFullWidth(by: a.w1)
        let s2 = a.w2.multipliedFullWidth(by: a.w2)
        let s3 = a.w3.multipliedFullWidth(by: a.w3)
        var carry: UInt64
        (carry, r1) = UInt256.addCarry(r1, s0.high, 0)
        (carry, r2) = UInt256.addCarry(r2, s1.low, carry)
        (carry, r3) = UInt256.addCarry(r3, s1.high, carry)
        (carry, r4) = UInt256.addCarry(r4, s2.low, carry)
        (carry, r5) = UInt256.addCarry(r5, s2.high, carry)
        (carry, r6) = UInt256.addCarry(r6, s3.low, carry)
        (_, r7) = UInt256.addCarry(r7, s3.high, carry)
        return UInt512(w0: s0.low, w1: r1, w2: r2, w3: r3, w4: r4, w5: r5, w6: r6, w7: r7)
    }

    /// Montgomery reduction t·2^-256 mod m of t < m·2^256, for an odd m < 2^256 - 2^192 (both
    /// P-256 moduli are), fully reduced and without branching.
    ///
    /// `mInverse` is -m^-1 mod 2^64. Each round adds q·m, which clears the lowest limb, and
    /// shifts down by one limb; the bound on m keeps every round's result within four limbs.
    /// (A product-scanning form of this loop measured slower.)
    @inline(__always)
    static func montgomeryReduce(_ t: UInt512, _ m: UInt256, _ mInverse: UInt64) -> UInt256 {
        var x0 = t.w0
        var x1 = t.w1
        var x2 = t.w2
        var x3 = t.w3

        @inline(__always)
        func round() {
            let q = x0 &* mInverse
            var carry: UInt64
            (carry, _) = multiplyAdd(q, m.w0, x0, 0)
            (carry, x0) = multiplyAdd(q, m.w1, x1, carry)
            (carry, x1) = multiplyAdd(q, m.w2, x2, carry)
            (carry, x2) = multiplyAdd(q, m.w3, x3, carry)
            x3 = carry
        }
        round()
        round()
        round()
        round()
        var carry: UInt64
        (carry, x0) = addCarry(x0, t.w4, 0)
        (carry, x1) = addCarry(x1, t.w5, carry)
        (carry, x2) = addCarry(x2, t.w6, carry)
        (carry, x3) = addCarry(x3, t.w7, carry)
        // (t + Q·m)/2^256 < 2m: subtract m once unless that borrows past the carry.
        let value = UInt256(x0, x1, x2, x3)
        let (borrow, reduced) = subtract(value, m)
        let (finalBorrow, _) = subtractBorrow(carry, 0, borrow)
        return select(0 &- finalBorrow, value, reduced)
    }
}
