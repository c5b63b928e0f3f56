/// An unsigned integer of any size as 64-bit limbs, least significant first, with no leading
/// zero limbs: the arithmetic RSA key generation, signing and verification need (sized for
/// RSA-2048, correct for any size).
///
/// NOT constant time: comparisons, division and inversion branch on limb values, and
/// exponentiation (`MontgomeryModulus`) uses a table indexed by exponent bits. That is fine
/// here because RSA keys in iapsim sign test data only; it must not guard real secrets.
struct BigUInt: Equatable, Sendable {
    /// Limbs, least significant first; the last one is never zero (zero has none).
    private(set) var limbs: [UInt64]

    init() { limbs = [] }

    init(_ value: UInt64) { limbs = value == 0 ? [] : [value] }

    /// From limbs least significant first; leading zero limbs are dropped.
    init(limbs: [UInt64]) {
        self.limbs = limbs
        normalize()
    }

    /// Reads a big-endian magnitude of any length (leading zero bytes allowed).
    init(bigEndianBytes bytes: some Collection<UInt8>) {
        var limbs = [UInt64](repeating: 0, count: (bytes.count + 7) / 8)
        for (index, byte) in bytes.reversed().enumerated() {
            limbs[index / 8] |= UInt64(byte) << UInt64(8 * (index % 8))
        }
        self.init(limbs: limbs)
    }

    private mutating func normalize() {
        while limbs.last == 0 { limbs.removeLast() }
    }

    static let zero = BigUInt()
    static let one = BigUInt(1)

    var isZero: Bool { limbs.isEmpty }
    var isOdd: Bool { (limbs.first ?? 0) & 1 == 1 }

    /// The number of significant bits (0 for zero).
    var bitWidth: Int {
        guard let top = limbs.last else { return 0 }
        return limbs.count * 64 - top.leadingZeroBitCount
    }

    /// The minimal big-endian encoding (empty for zero).
    var bigEndianBytes: [UInt8] {
        let count = (bitWidth + 7) / 8
        return bigEndianBytes(count: count) ?? []
    }

    /// The big-endian encoding left-padded to exactly `count` bytes (RFC 8017's I2OSP), or
    /// nil when the value needs more.
    func bigEndianBytes(count: Int) -> [UInt8]? {
        guard (bitWidth + 7) / 8 <= count else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<min(count, limbs.count * 8) {
            bytes[count - 1 - index] = UInt8(truncatingIfNeeded: limbs[index / 8] >> UInt64(8 * (index % 8)))
        }
        return bytes
    }

    /// Limb `index`, zero beyond the top.
    func limb(_ index: Int) -> UInt64 { index < limbs.count ? limbs[index] : 0 }

    /// The limbs padded with zeros to `count` (which must hold them).
    func paddedLimbs(_ count: Int) -> [UInt64] {
        limbs + [UInt64](repeating: 0, count: count - limbs.count)
    }

    func bit(_ index: Int) -> Bool {
        (limb(index / 64) >> UInt64(index % 64)) & 1 == 1
    }

    // MARK: - Arithmetic

    static func + (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        let count = max(lhs.limbs.count, rhs.limbs.count)
        var result = [UInt64](repeating: 0, count: count + 1)
        var carry: UInt64 = 0
        for index in 0..<count {
            let (sum1, overflow1) = lhs.limb(index).addingReportingOverflow(rhs.limb(index))
            let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
            result[index] = sum2
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        result[count] = carry
        return BigUInt(limbs: result)
    }

    /// lhs − rhs; the caller guarantees lhs ≥ rhs.
    static func - (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        precondition(!(lhs < rhs), "BigUInt subtraction would go below zero")
        var result = lhs.limbs
        var borrow: UInt64 = 0
        for index in 0..<result.count {
            let (difference1, overflow1) = result[index].subtractingReportingOverflow(rhs.limb(index))
            let (difference2, overflow2) = difference1.subtractingReportingOverflow(borrow)
            result[index] = difference2
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        return BigUInt(limbs: result)
    }

    /// Schoolbook multiplication with `multipliedFullWidth`.
    static func * (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        guard !lhs.isZero, !rhs.isZero else { return .zero }
        var result = [UInt64](repeating: 0, count: lhs.limbs.count + rhs.limbs.count)
        for i in 0..<lhs.limbs.count {
            var carry: UInt64 = 0
            for j in 0..<rhs.limbs.count {
                (carry, result[i + j]) = multiplyAdd(lhs.limbs[i], rhs.limbs[j], result[i + j], carry)
            }
            result[i + rhs.limbs.count] = carry
        }
        return BigUInt(limbs: result)
    }

    /// a·b + c + d as (high, low); never overflows 128 bits.
    @inline(__always)
    static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (UInt64, UInt64) {
        let product = a.multipliedFullWidth(by: b)
        let (low1, carry1) = product.low.addingReportingOverflow(c)
        let (low2, carry2) = low1.addingReportingOverflow(d)
        return (product.high &+ (carry1 ? 1 : 0) &+ (carry2 ? 1 : 0), low2)
    }

    static func << (value: BigUInt, shift: Int) -> BigUInt {
        guard !value.isZero, shift > 0 else { return value }
        let limbShift = shift / 64
        let bitShift = UInt64(shift % 64)
        var result = [UInt64](repeating: 0, count: value.limbs.count + limbShift + 1)
        for (index, limb) in value.limbs.enumerated() {
            result[index + limbShift] |= limb << bitShift
            if bitShift > 0 { result[index + limbShift + 1] |= limb >> (64 - bitShift) }
        }
        return BigUInt(limbs: result)
    }

    static func >> (value: BigUInt, shift: Int) -> BigUInt {
        guard shift > 0 else { return value }
        let limbShift = shift / 64
        let bitShift = UInt64(shift % 64)
        guard limbShift < value.limbs.count else { return .zero }
        var result = [UInt64](repeating: 0, count: value.limbs.count - limbShift)
        for index in 0..<result.count {
            result[index] = value.limbs[index + limbShift] >> bitShift
            if bitShift > 0 { result[index] |= value.limb(index + limbShift + 1) << (64 - bitShift) }
        }
        return BigUInt(limbs: result)
    }

    /// Long division by shifting and subtracting, one quotient bit at a time: slow, and only
    /// used while making a key and reducing a signature input, never per limb of an exponent.
    /// - Precondition: `divisor` is not zero.
    func quotientAndRemainder(dividingBy divisor: BigUInt) -> (quotient: BigUInt, remainder: BigUInt) {
        precondition(!divisor.isZero, "BigUInt division by zero")
        guard !(self < divisor) else { return (.zero, self) }
        var remainder = self
        var shift = bitWidth - divisor.bitWidth
        var shifted = divisor << shift
        var quotient = [UInt64](repeating: 0, count: shift / 64 + 1)
        while shift >= 0 {
            if !(remainder < shifted) {
                remainder = remainder - shifted
                quotient[shift / 64] |= 1 << UInt64(shift % 64)
            }
            shifted = shifted >> 1
            shift -= 1
        }
        return (BigUInt(limbs: quotient), remainder)
    }

    static func % (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        lhs.quotientAndRemainder(dividingBy: rhs).remainder
    }

    /// The remainder after dividing by a one-limb number (the small-prime sieve).
    func remainder(dividingBy divisor: UInt64) -> UInt64 {
        var remainder: UInt64 = 0
        for limb in limbs.reversed() {
            remainder = divisor.dividingFullWidth((high: remainder, low: limb)).remainder
        }
        return remainder
    }

    /// The inverse of `self` modulo `modulus` (extended Euclid with the coefficients kept in
    /// [0, modulus)), or nil when they share a factor.
    func inverse(modulo modulus: BigUInt) -> BigUInt? {
        guard modulus > .one else { return nil }
        var (r0, r1) = (modulus, self % modulus)
        var (t0, t1) = (BigUInt.zero, BigUInt.one)
        while !r1.isZero {
            let (quotient, remainder) = r0.quotientAndRemainder(dividingBy: r1)
            (r0, r1) = (r1, remainder)
            let product = (quotient * t1) % modulus
            (t0, t1) = (t1, (t0 + modulus - product) % modulus)
        }
        return r0 == .one ? t0 : nil
    }

    /// The greatest common divisor (Euclid).
    static func gcd(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
        var (x, y) = (a, b)
        while !y.isZero { (x, y) = (y, x % y) }
        return x
    }
}

extension BigUInt: Comparable {
    static func < (lhs: BigUInt, rhs: BigUInt) -> Bool {
        if lhs.limbs.count != rhs.limbs.count { return lhs.limbs.count < rhs.limbs.count }
        for index in stride(from: lhs.limbs.count - 1, through: 0, by: -1) where lhs.limbs[index] != rhs.limbs[index] {
            return lhs.limbs[index] < rhs.limbs[index]
        }
        return false
    }
}
