/// An element of GF(2²⁵⁵ − 19) in five 51-bit limbs (radix 2⁵¹), for X25519.
///
/// Hand-written, for test data only, though written to run in constant time: no branch or
/// index depends on a value, products go through `UInt128`, and `swap` is a masked exchange.
/// Limbs may exceed 51 bits between operations (up to about 2⁵⁴); `multiply` and `square`
/// accept that and return limbs below 2⁵²; only `bytes` reduces fully.
struct Curve25519FieldElement: Sendable {
    var l0: UInt64
    var l1: UInt64
    var l2: UInt64
    var l3: UInt64
    var l4: UInt64

    static let mask51: UInt64 = (1 << 51) - 1
    static let zero = Curve25519FieldElement(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    static let one = Curve25519FieldElement(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)

    /// Reads 32 little-endian bytes, ignoring the top bit (RFC 7748 §5: "mask the most
    /// significant bit"); values from p to 2²⁵⁵ − 1 are accepted and reduce mod p.
    init(bytes: [UInt8]) {
        func word(_ index: Int) -> UInt64 {
            var value: UInt64 = 0
            for offset in 0..<8 { value |= UInt64(bytes[8 * index + offset]) << (8 * UInt64(offset)) }
            return value
        }
        let w0 = word(0)
        let w1 = word(1)
        let w2 = word(2)
        let w3 = word(3) & 0x7FFF_FFFF_FFFF_FFFF
        l0 = w0 & Self.mask51
        l1 = (w0 >> 51 | w1 << 13) & Self.mask51
        l2 = (w1 >> 38 | w2 << 26) & Self.mask51
        l3 = (w2 >> 25 | w3 << 39) & Self.mask51
        l4 = w3 >> 12
    }

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
    }

    static func + (a: Self, b: Self) -> Self {
        Self(l0: a.l0 + b.l0, l1: a.l1 + b.l1, l2: a.l2 + b.l2, l3: a.l3 + b.l3, l4: a.l4 + b.l4)
    }

    /// a − b computed as a + 4p − b, so no limb underflows while b's limbs are below 2⁵³.
    static func - (a: Self, b: Self) -> Self {
        let reduced = Self(
            l0: a.l0 + 0x1F_FFFF_FFFF_FFB4 - b.l0, l1: a.l1 + 0x1F_FFFF_FFFF_FFFC - b.l1,
            l2: a.l2 + 0x1F_FFFF_FFFF_FFFC - b.l2, l3: a.l3 + 0x1F_FFFF_FFFF_FFFC - b.l3,
            l4: a.l4 + 0x1F_FFFF_FFFF_FFFC - b.l4)
        return reduced.carried()
    }

    static func * (a: Self, b: Self) -> Self {
        // 2²⁵⁵ ≡ 19, so a limb product that lands at 2²⁵⁵ or above folds back times 19.
        let b1 = b.l1 * 19
        let b2 = b.l2 * 19
        let b3 = b.l3 * 19
        let b4 = b.l4 * 19
        func m(_ x: UInt64, _ y: UInt64) -> UInt128 { UInt128(x) * UInt128(y) }
        let r0 = m(a.l0, b.l0) + m(a.l1, b4) + m(a.l2, b3) + m(a.l3, b2) + m(a.l4, b1)
        let r1 = m(a.l0, b.l1) + m(a.l1, b.l0) + m(a.l2, b4) + m(a.l3, b3) + m(a.l4, b2)
        let r2 = m(a.l0, b.l2) + m(a.l1, b.l1) + m(a.l2, b.l0) + m(a.l3, b4) + m(a.l4, b3)
        let r3 = m(a.l0, b.l3) + m(a.l1, b.l2) + m(a.l2, b.l1) + m(a.l3, b.l0) + m(a.l4, b4)
        let r4 = m(a.l0, b.l4) + m(a.l1, b.l3) + m(a.l2, b.l2) + m(a.l3, b.l1) + m(a.l4, b.l0)
        return reduce(r0, r1, r2, r3, r4)
    }

    var squared: Self { self * self }

    /// self · 121665, the curve constant (A − 2) / 4 of RFC 7748's ladder.
    var timesA24: Self {
        let c = UInt128(121_665)
        return Self.reduce(UInt128(l0) * c, UInt128(l1) * c, UInt128(l2) * c, UInt128(l3) * c, UInt128(l4) * c)
    }

    /// Carries wide limbs down to 51 bits each (plus a small excess in l0).
    private static func reduce(_ r0: UInt128, _ r1: UInt128, _ r2: UInt128, _ r3: UInt128, _ r4: UInt128) -> Self {
        let mask = UInt128(mask51)
        var c = r0 >> 51
        let l0 = UInt64(r0 & mask)
        let t1 = r1 + c
        c = t1 >> 51
        let l1 = UInt64(t1 & mask)
        let t2 = r2 + c
        c = t2 >> 51
        let l2 = UInt64(t2 & mask)
        let t3 = r3 + c
        c = t3 >> 51
        let l3 = UInt64(t3 & mask)
        let t4 = r4 + c
        c = t4 >> 51
        let l4 = UInt64(t4 & mask)
        // c can pass 2⁶⁰, so the fold stays wide until it is split again.
        let folded = UInt128(l0) + c * 19
        return Self(l0: UInt64(folded & mask), l1: l1 + UInt64(folded >> 51), l2: l2, l3: l3, l4: l4)
    }

    /// One carry pass over 64-bit limbs.
    private func carried() -> Self {
        var r = self
        r.l1 += r.l0 >> 51
        r.l0 &= Self.mask51
        r.l2 += r.l1 >> 51
        r.l1 &= Self.mask51
        r.l3 += r.l2 >> 51
        r.l2 &= Self.mask51
        r.l4 += r.l3 >> 51
        r.l3 &= Self.mask51
        r.l0 += (r.l4 >> 51) * 19
        r.l4 &= Self.mask51
        return r
    }

    /// self^(p − 2) = self⁻¹ (and 0 for 0), by the usual addition chain of 254 squarings and
    /// 11 multiplications; zN is self^(2^N − 1).
    var inverted: Self {
        func squares(_ x: Self, _ count: Int) -> Self {
            var result = x
            for _ in 0..<count { result = result.squared }
            return result
        }
        let z2 = squared
        let z9 = squares(z2, 2) * self
        let z11 = z9 * z2
        let z5 = z11.squared * z9
        let z10 = squares(z5, 5) * z5
        let z20 = squares(z10, 10) * z10
        let z40 = squares(z20, 20) * z20
        let z50 = squares(z40, 10) * z10
        let z100 = squares(z50, 50) * z50
        let z200 = squares(z100, 100) * z100
        let z250 = squares(z200, 50) * z50
        return squares(z250, 5) * z11
    }

    /// The canonical 32-byte little-endian encoding (fully reduced below p).
    var bytes: [UInt8] {
        var r = carried().carried()
        // q = 1 exactly when r ≥ p: whether r + 19 carries out of bit 255.
        var q = (r.l0 + 19) >> 51
        q = (r.l1 + q) >> 51
        q = (r.l2 + q) >> 51
        q = (r.l3 + q) >> 51
        q = (r.l4 + q) >> 51
        r.l0 += 19 * q
        r.l1 += r.l0 >> 51
        r.l0 &= Self.mask51
        r.l2 += r.l1 >> 51
        r.l1 &= Self.mask51
        r.l3 += r.l2 >> 51
        r.l2 &= Self.mask51
        r.l4 += r.l3 >> 51
        r.l3 &= Self.mask51
        r.l4 &= Self.mask51
        let words = [r.l0 | r.l1 << 51, r.l1 >> 13 | r.l2 << 38, r.l2 >> 26 | r.l3 << 25, r.l3 >> 39 | r.l4 << 12]
        var output = [UInt8]()
        output.reserveCapacity(32)
        for word in words {
            for offset in 0..<8 { output.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(offset)))) }
        }
        return output
    }

    /// Exchanges a and b when `bit` is 1, without a branch.
    static func swap(_ a: inout Self, _ b: inout Self, bit: UInt64) {
        let mask = 0 &- bit
        var t = mask & (a.l0 ^ b.l0)
        a.l0 ^= t
        b.l0 ^= t
        t = mask & (a.l1 ^ b.l1)
        a.l1 ^= t
        b.l1 ^= t
        t = mask & (a.l2 ^ b.l2)
        a.l2 ^= t
        b.l2 ^= t
        t = mask & (a.l3 ^ b.l3)
        a.l3 ^= t
        b.l3 ^= t
        t = mask & (a.l4 ^ b.l4)
        a.l4 ^= t
        b.l4 ^= t
    }
}
