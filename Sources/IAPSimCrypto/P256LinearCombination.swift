/// u1·G + u2·Q for ECDSA verification, where every input is public.
///
/// u1·G comes from the precomputed base table (no doublings); u2·Q uses a width-5 wNAF,
/// which needs 256 doublings but only about 43 additions of the odd multiples Q, 3Q, …, 15Q.
/// All additions here handle doubling and infinity, which Wycheproof's edge cases reach.
enum P256LinearCombination {
    static let windowWidth = 5

    static func compute(u1: P256Scalar, u2: P256Scalar, q: P256AffinePoint) -> P256JacobianPoint {
        let basePart = P256BasePointTable.shared.multiply(publicScalar: u1)
        let pointPart = multiply(u2, q)
        return basePart.adding(pointPart)
    }

    /// k·Q by width-5 wNAF (variable time).
    static func multiply(_ k: P256Scalar, _ q: P256AffinePoint) -> P256JacobianPoint {
        withUnsafeTemporaryAllocation(of: Int8.self, capacity: 257) { digits in
            digits.initialize(repeating: 0)
            let length = recode(k.value, into: digits)
            guard length > 0 else { return P256JacobianPoint.infinity }
            return withUnsafeTemporaryAllocation(of: P256JacobianPoint.self, capacity: 8) { odd in
                // odd[i] = (2i+1)·Q.
                let single = P256JacobianPoint(q)
                let twice = single.doubled()
                odd.initialize(repeating: single)
                for index in 1..<8 {
                    odd[index] = odd[index - 1].adding(twice)
                }
                var accumulator = P256JacobianPoint.infinity
                for position in stride(from: length - 1, through: 0, by: -1) {
                    if !accumulator.isInfinity { accumulator = accumulator.doubled() }
                    let digit = Int(digits[position])
                    if digit > 0 {
                        accumulator = accumulator.adding(odd[digit >> 1])
                    } else if digit < 0 {
                        accumulator = accumulator.adding(odd[(-digit) >> 1].negated)
                    }
                }
                return accumulator
            }
        }
    }

    /// Writes the width-5 non-adjacent form of `value` (digits odd, |d| < 16, least
    /// significant first) and returns how many digits it has.
    static func recode(_ value: UInt256, into digits: UnsafeMutableBufferPointer<Int8>) -> Int {
        var k = value
        var position = 0
        let modulus: UInt64 = 1 << UInt64(windowWidth)
        while !k.isZero, position < digits.count {
            var digit: Int64 = 0
            if k.w0 & 1 == 1 {
                digit = Int64(k.w0 & (modulus - 1))
                if digit >= Int64(modulus / 2) { digit -= Int64(modulus) }
                // k - digit is divisible by 2^w; for k < n adding up to 15 cannot overflow.
                if digit > 0 {
                    k = UInt256.subtract(k, UInt256(UInt64(digit), 0, 0, 0)).1
                } else {
                    k = UInt256.add(k, UInt256(UInt64(-digit), 0, 0, 0)).1
                }
            }
            digits[position] = Int8(digit)
            k = UInt256(
                k.w0 >> 1 | k.w1 << 63, k.w1 >> 1 | k.w2 << 63,
                k.w2 >> 1 | k.w3 << 63, k.w3 >> 1)
            position += 1
        }
        return position
    }
}
