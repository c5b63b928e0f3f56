/// An odd modulus m prepared for Montgomery arithmetic (R = 2^(64·s), s limbs): modular
/// multiplication with no division, and exponentiation with a fixed 4-bit window.
///
/// Variable time (see `BigUInt`): the final subtraction is conditional and the window table is
/// indexed by exponent bits. Fine for test keys, not for real secrets.
struct MontgomeryModulus: Sendable {
    let modulus: BigUInt
    /// The modulus's limbs (s of them).
    private let m: [UInt64]
    /// −m⁻¹ mod 2^64.
    private let inverse: UInt64
    /// R² mod m, to bring a number into Montgomery form.
    private let rSquared: [UInt64]
    /// R mod m: 1 in Montgomery form.
    private let one: [UInt64]

    /// - Precondition: `modulus` is odd and greater than 1.
    init(_ modulus: BigUInt) {
        precondition(modulus.isOdd && modulus > .one, "a Montgomery modulus is odd and above 1")
        self.modulus = modulus
        m = modulus.limbs
        // Newton's iteration doubles the correct low bits each step; x = m starts right to 3
        // bits (an odd square is 1 mod 8), so 5 steps reach 96 ≥ 64.
        var x: UInt64 = m[0]
        for _ in 0..<5 { x = x &* (2 &- m[0] &* x) }
        inverse = 0 &- x
        let count = m.count
        rSquared = ((BigUInt.one << (128 * count)) % modulus).paddedLimbs(count)
        one = ((BigUInt.one << (64 * count)) % modulus).paddedLimbs(count)
    }

    /// a·b·R⁻¹ mod m for a, b < m given as s limbs (CIOS, Koç et al. 1996).
    func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let s = m.count
        var t = [UInt64](repeating: 0, count: s + 2)
        t.withUnsafeMutableBufferPointer { t in
            m.withUnsafeBufferPointer { n in
                a.withUnsafeBufferPointer { a in
                    b.withUnsafeBufferPointer { b in
                        for i in 0..<s {
                            var carry: UInt64 = 0
                            let bi = b[i]
                            for j in 0..<s {
                                (carry, t[j]) = BigUInt.multiplyAdd(a[j], bi, t[j], carry)
                            }
                            let (sum, overflow) = t[s].addingReportingOverflow(carry)
                            t[s] = sum
                            t[s + 1] = overflow ? 1 : 0
                            let factor = t[0] &* inverse
                            (carry, _) = BigUInt.multiplyAdd(factor, n[0], t[0], 0)
                            for j in 1..<s {
                                (carry, t[j - 1]) = BigUInt.multiplyAdd(factor, n[j], t[j], carry)
                            }
                            let (top, topOverflow) = t[s].addingReportingOverflow(carry)
                            t[s - 1] = top
                            t[s] = t[s + 1] &+ (topOverflow ? 1 : 0)
                        }
                    }
                }
            }
        }
        // t < 2m: subtract m once if t ≥ m.
        var needsSubtraction = t[s] != 0
        if !needsSubtraction {
            needsSubtraction = true
            for index in stride(from: s - 1, through: 0, by: -1) where t[index] != m[index] {
                needsSubtraction = t[index] > m[index]
                break
            }
        }
        var result = Array(t[0..<s])
        if needsSubtraction {
            var borrow: UInt64 = 0
            for index in 0..<s {
                let (difference1, overflow1) = result[index].subtractingReportingOverflow(m[index])
                let (difference2, overflow2) = difference1.subtractingReportingOverflow(borrow)
                result[index] = difference2
                borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
            }
        }
        return result
    }

    /// `value` (below m) in Montgomery form.
    func toMontgomery(_ value: BigUInt) -> [UInt64] {
        multiply(value.paddedLimbs(m.count), rSquared)
    }

    /// A Montgomery-form number back to an ordinary one.
    func fromMontgomery(_ value: [UInt64]) -> BigUInt {
        var unit = [UInt64](repeating: 0, count: m.count)
        unit[0] = 1
        return BigUInt(limbs: multiply(value, unit))
    }

    /// The Montgomery form of 1.
    var montgomeryOne: [UInt64] { one }

    /// base^exponent mod m, left to right over 4-bit windows of the exponent.
    func power(_ base: BigUInt, _ exponent: BigUInt) -> BigUInt {
        let reduced = base < modulus ? base : base % modulus
        var table = [one, toMontgomery(reduced)]
        for index in 2..<16 { table.append(multiply(table[index - 1], table[1])) }
        var result = one
        let windows = (exponent.bitWidth + 3) / 4
        for window in stride(from: windows - 1, through: 0, by: -1) {
            if window != windows - 1 {
                for _ in 0..<4 { result = multiply(result, result) }
            }
            let digit = Int((exponent.limb(window * 4 / 64) >> UInt64(window * 4 % 64)) & 0xF)
            if digit != 0 { result = multiply(result, table[digit]) }
        }
        return fromMontgomery(result)
    }
}
