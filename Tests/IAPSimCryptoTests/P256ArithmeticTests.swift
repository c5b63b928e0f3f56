import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("P-256 arithmetic")
struct P256ArithmeticTests {
    /// Reference k·P by plain double-and-add over the complete addition.
    private func reference(_ k: UInt256, _ point: P256AffinePoint) -> P256JacobianPoint {
        var result = P256JacobianPoint.infinity
        for bit in stride(from: 255, through: 0, by: -1) {
            result = result.doubled()
            if k.bit(bit) == 1 { result = result.adding(point) }
        }
        return result
    }

    private func randomScalar(_ generator: inout SeededGenerator) -> P256Scalar {
        P256Scalar(reducing: UInt256(generator.next(), generator.next(), generator.next(), generator.next()))
    }

    @Test("field inverse, Montgomery round trip and curve constants")
    func field() {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("P256ArithmeticTests.field"))
        for _ in 0..<50 {
            let raw = UInt256(generator.next(), generator.next(), generator.next(), generator.next() >> 1)
            guard let element = P256FieldElement(integer: raw) else { continue }
            #expect(element.integer == raw)
            if !element.isZero { #expect(element * element.inverted == .one) }
            #expect(element + element.negated == .zero)
            #expect((element - .one) + .one == element)
        }
        #expect(P256FieldElement.zero.inverted == .zero)
        #expect(P256AffinePoint.generator.isOnCurve)
    }

    @Test("scalar inverse and arithmetic mod n")
    func scalars() {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("P256ArithmeticTests.scalars"))
        let one = P256Scalar(unchecked: UInt256(1, 0, 0, 0))
        for _ in 0..<50 {
            let a = randomScalar(&generator)
            let b = randomScalar(&generator)
            if !a.isZero { #expect(a * a.inverted == one) }
            #expect(a * b == b * a)
            #expect(a * (b + one) == a * b + a)
        }
        let nMinusOne = P256Scalar(unchecked: UInt256.subtract(P256Scalar.order, UInt256(1, 0, 0, 0)).1)
        #expect(nMinusOne * nMinusOne == one)
        #expect(nMinusOne + one == .zero)
    }

    @Test("table-based k·G, public k·G and wNAF k·Q agree with double-and-add")
    func multiplication() {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("P256ArithmeticTests.multiplication"))
        let g = P256AffinePoint.generator
        var scalars = (0..<20).map { _ in randomScalar(&generator) }
        scalars += [1, 2, 15, 16, 17].map { P256Scalar(unchecked: UInt256($0, 0, 0, 0)) }
        scalars.append(P256Scalar(unchecked: UInt256.subtract(P256Scalar.order, UInt256(1, 0, 0, 0)).1))
        let q = P256BasePointTable.shared.multiply(P256Scalar(unchecked: UInt256(12345, 0, 0, 0))).affine
        for k in scalars where !k.isZero {
            let expected = reference(k.value, g).affine
            #expect(P256BasePointTable.shared.multiply(k).affine == expected)
            #expect(P256BasePointTable.shared.multiply(publicScalar: k).affine == expected)
            #expect(P256LinearCombination.multiply(k, g).affine == expected)
            if let q {
                #expect(P256LinearCombination.multiply(k, q).affine == reference(k.value, q).affine)
            }
        }
        #expect(P256BasePointTable.shared.multiply(publicScalar: .zero).isInfinity)
        #expect(P256LinearCombination.multiply(.zero, g).isInfinity)
        // n·G = infinity: (n-1)·G + G.
        let last = P256BasePointTable.shared.multiply(
            publicScalar: P256Scalar(unchecked: UInt256.subtract(P256Scalar.order, UInt256(1, 0, 0, 0)).1))
        #expect(last.adding(g).isInfinity)
        // u1·G + u2·G where the two halves are equal exercises the doubling branch.
        let seven = P256Scalar(unchecked: UInt256(7, 0, 0, 0))
        #expect(
            P256LinearCombination.compute(u1: seven, u2: seven, q: g).affine
                == reference(UInt256(14, 0, 0, 0), g).affine)
    }

    /// (digit·2^exponent mod n)·G as an affine point, by the reference double-and-add.
    private func powerOfTwoMultiple(_ digit: UInt64, shiftedBy exponent: Int) -> P256AffinePoint? {
        var k = P256Scalar(unchecked: UInt256(digit, 0, 0, 0))
        let two = P256Scalar(unchecked: UInt256(2, 0, 0, 0))
        for _ in 0..<exponent { k = k * two }
        return reference(k.value, .generator).affine
    }

    @Test("base-point table entries are d·2^(6w)·G", arguments: [0, 1, 10, 21, 41, 42])
    func tableEntries(window: Int) {
        for digit in [1, 2, 3, 16, 17, 31, 32] {
            #expect(
                P256BasePointTable.shared.entry(window: window, digit: digit)
                    == powerOfTwoMultiple(UInt64(digit), shiftedBy: 6 * window))
        }
    }

    @Test("Booth digits of the base-point table reconstruct the scalar")
    func boothDigits() {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("P256ArithmeticTests.boothDigits"))
        var scalars = (0..<50).map { _ in randomScalar(&generator) }
        scalars += [0, 1, 31, 32, 33, 63, 64].map { P256Scalar(unchecked: UInt256($0, 0, 0, 0)) }
        scalars.append(P256Scalar(unchecked: UInt256.subtract(P256Scalar.order, UInt256(1, 0, 0, 0)).1))
        let sixtyFour = P256Scalar(unchecked: UInt256(64, 0, 0, 0))
        for k in scalars {
            var total = P256Scalar.zero
            var power = P256Scalar(unchecked: UInt256(1, 0, 0, 0))
            for window in 0..<P256BasePointTable.windowCount {
                let (magnitude, negative) = P256BasePointTable.digit(k.value, window: window)
                #expect(magnitude <= 32 && (negative == 0 || negative == .max))
                if window == P256BasePointTable.windowCount - 1 { #expect(negative == 0) }
                let term = P256Scalar(unchecked: UInt256(magnitude, 0, 0, 0)) * power
                total =
                    negative == 0
                    ? total + term
                    : total + P256Scalar(unchecked: UInt256.subtractModulo(.zero, term.value, P256Scalar.order))
                power = power * sixtyFour
            }
            #expect(total == k)
        }
    }

    /// k = 30·2^252 - n is the one scalar for which the last window could have asked the
    /// incomplete addition to double (P256BasePointTable.multiply explains why it does not);
    /// the others sit on window and limb boundaries.
    @Test("constant-time k·G at the edges of the signed windows")
    func baseMultiplicationEdges() {
        let thirtyTimes2To252 = UInt256(0, 0, 0, 30 << 60)
        let edges: [UInt256] = [
            UInt256.subtract(thirtyTimes2To252, P256Scalar.order).1,
            UInt256(0, 0, 0, 1 << 60), UInt256(0, 0, 0, 15 << 60), UInt256(0, 0, 0, 0x8000_0000_0000_0000),
            UInt256(0, 0, 0, 0x7fff_ffff_ffff_ffff), UInt256(UInt64.max, UInt64.max, UInt64.max, 0x0fff_ffff_ffff_ffff),
            UInt256(0x20, 0, 0, 0), UInt256(0x1f, 0, 0, 0), UInt256(0, 1, 0, 0), UInt256(0, 0, 1, 0),
            UInt256.subtract(P256Scalar.order, UInt256(32, 0, 0, 0)).1,
        ]
        for value in edges {
            guard let k = P256Scalar(integer: value), !k.isZero else {
                Issue.record("edge scalar out of range")
                continue
            }
            let expected = reference(value, .generator).affine
            #expect(P256BasePointTable.shared.multiply(k).affine == expected)
            #expect(P256BasePointTable.shared.multiply(publicScalar: k).affine == expected)
        }
    }

    @Test("wNAF digits reconstruct the scalar")
    func recoding() {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<50 {
            let k = randomScalar(&generator)
            let digits = withUnsafeTemporaryAllocation(of: Int8.self, capacity: 257) { buffer -> [Int8] in
                buffer.initialize(repeating: 0)
                let count = P256LinearCombination.recode(k.value, into: buffer)
                return Array(buffer.prefix(count))
            }
            // Rebuild as a field-free integer check: Σ d_i 2^i computed mod n via scalars.
            var total = P256Scalar.zero
            var power = P256Scalar(unchecked: UInt256(1, 0, 0, 0))
            let two = P256Scalar(unchecked: UInt256(2, 0, 0, 0))
            for digit in digits {
                #expect(digit == 0 || (digit % 2 != 0 && abs(Int(digit)) < 16))
                let magnitude = P256Scalar(unchecked: UInt256(UInt64(abs(Int(digit))), 0, 0, 0))
                let term = magnitude * power
                total =
                    digit >= 0
                    ? total + term
                    : total + P256Scalar(unchecked: UInt256.subtractModulo(.zero, term.value, P256Scalar.order))
                power = power * two
            }
            #expect(total == k)
        }
    }
}

extension P256AffinePoint: CustomStringConvertible {
    public var description: String { x.bigEndianBytes.hex + "," + y.bigEndianBytes.hex }
}
