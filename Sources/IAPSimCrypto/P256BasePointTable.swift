/// Precomputed multiples of the generator for fast k·G: for each 6-bit window w (0..<43) and
/// digit d (1...32), the affine point d·2^(6w)·G.
///
/// k is read in signed windows (Booth recoding): each digit lies in [-32, 32], so a window
/// needs only the multiples 1…32 and a conditional negation, and k·G takes 43 mixed additions
/// and no doublings (unsigned 4-bit windows took 64). The 88 KB table is computed once on
/// first use (about a millisecond and a half in release builds) rather than shipped as a
/// source literal, which would slow compilation and be unauditable.
struct P256BasePointTable: Sendable {
    static let windowWidth = 6
    /// ⌈257/6⌉: the top window must hold k's bit 255 as a non-negative digit.
    static let windowCount = 43
    static let entriesPerWindow = 32
    /// Limbs per entry: x then y, four Montgomery limbs each.
    static let limbsPerEntry = 8

    /// The process-wide table; immutable once built, so sharing it across threads is safe.
    static let shared = P256BasePointTable()

    private let limbs: [UInt64]

    private init() {
        var points = [P256JacobianPoint]()
        points.reserveCapacity(Self.windowCount * Self.entriesPerWindow)
        var windowBase = P256JacobianPoint(P256AffinePoint.generator)
        for _ in 0..<Self.windowCount {
            var multiple = windowBase
            points.append(multiple)
            for _ in 2...Self.entriesPerWindow {
                multiple = multiple.adding(windowBase)
                points.append(multiple)
            }
            for _ in 0..<Self.windowWidth { windowBase = windowBase.doubled() }
        }
        // Batch inversion (Montgomery's trick): one field inversion for all 1,376 Z coordinates.
        var prefix = [P256FieldElement]()
        prefix.reserveCapacity(points.count)
        var running = P256FieldElement.one
        for point in points {
            running = running * point.z
            prefix.append(running)
        }
        var inverse = running.inverted
        var table = [UInt64](repeating: 0, count: points.count * Self.limbsPerEntry)
        for index in stride(from: points.count - 1, through: 0, by: -1) {
            let zInverse = index > 0 ? inverse * prefix[index - 1] : inverse
            inverse = inverse * points[index].z
            let zInverse2 = zInverse.squared
            let x = (points[index].x * zInverse2).limbs
            let y = (points[index].y * zInverse2 * zInverse).limbs
            let offset = index * Self.limbsPerEntry
            table[offset] = x.w0
            table[offset + 1] = x.w1
            table[offset + 2] = x.w2
            table[offset + 3] = x.w3
            table[offset + 4] = y.w0
            table[offset + 5] = y.w1
            table[offset + 6] = y.w2
            table[offset + 7] = y.w3
        }
        limbs = table
    }

    /// The signed digit of `scalar` for window `window`, as (magnitude, sign mask).
    ///
    /// Booth recoding: with b_i the bits of k (b_-1 = 0, and 0 above bit 255), the digit is
    /// b_(6w-1) + b_(6w) + 2·b_(6w+1) + … + 16·b_(6w+4) - 32·b_(6w+5), and Σ d_w·2^(6w) = k.
    /// The window's position is public; its bits are read and turned into a digit with shifts
    /// and arithmetic only, so no branch or index depends on k.
    @inline(__always)
    static func digit(_ scalar: UInt256, window: Int) -> (magnitude: UInt64, negative: UInt64) {
        // Seven bits from bit 6w-1: bits 6w…6w+6 of 2k, a 257-bit number held in five limbs.
        let position = window * windowWidth
        @inline(__always)
        func doubledLimb(_ index: Int) -> UInt64 {
            switch index {
            case 0: scalar.w0 << 1
            case 1: scalar.w1 << 1 | scalar.w0 >> 63
            case 2: scalar.w2 << 1 | scalar.w1 >> 63
            case 3: scalar.w3 << 1 | scalar.w2 >> 63
            case 4: scalar.w3 >> 63
            default: 0
            }
        }
        let shift = UInt64(position & 63)
        var bits = doubledLimb(position >> 6) >> shift
        if shift > 57 {
            bits |= doubledLimb((position >> 6) + 1) << (64 - shift)
        }
        bits &= 0x7F
        let value = Int64(bitPattern: (bits & 1) &+ ((bits >> 1) & 0x1F)) &- Int64(bitPattern: (bits >> 6) << 5)
        let negative = UInt64(bitPattern: value >> 63)
        return ((UInt64(bitPattern: value) ^ negative) &- negative, negative)
    }

    /// All-ones when a == b, else zero, without branching.
    @inline(__always)
    private static func equalMask(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let difference = a ^ b
        return ((difference | (0 &- difference)) >> 63) &- 1
    }

    @inline(__always)
    private static func entry(_ table: UnsafeBufferPointer<UInt64>, _ offset: Int) -> P256AffinePoint {
        P256AffinePoint(
            x: P256FieldElement(
                montgomery: UInt256(table[offset], table[offset + 1], table[offset + 2], table[offset + 3])),
            y: P256FieldElement(
                montgomery: UInt256(table[offset + 4], table[offset + 5], table[offset + 6], table[offset + 7])))
    }

    /// The entry d·2^(6w)·G for d in 1...32, read directly (variable time: public inputs only).
    func entry(window: Int, digit: Int) -> P256AffinePoint {
        limbs.withUnsafeBufferPointer { table in
            Self.entry(table, (window * Self.entriesPerWindow + digit - 1) * Self.limbsPerEntry)
        }
    }

    /// k·G in constant time for a secret k in [1, n-1].
    ///
    /// Every window reads all 32 entries and keeps one by mask, negates y by selection, and the
    /// additions never take data-dependent branches. The incomplete mixed addition is correct
    /// because the partial sum S = Σ_(j<w) d_j·2^(6j), which lies in (-2^(6w), 2^(6w)), is
    /// never ≡ ±d·2^(6w) (mod n) for the digit d ≠ 0 being added: below the top window the
    /// difference is nonzero and under 33·2^246 < n; in the top window (0 ≤ d ≤ 16),
    /// S + d·2^252 = k rules out the minus sign, and S - d·2^252 = -n would need
    /// k = 2d·2^252 - n, above n for d = 16 and, for d = 15, a k whose top digit is 14
    /// (P256ArithmeticTests checks that scalar). The only special case, a still-zero partial
    /// sum, is handled by selection.
    func multiply(_ k: P256Scalar) -> P256JacobianPoint {
        limbs.withUnsafeBytes { entries in
            var accumulator = P256JacobianPoint.infinity
            var accumulatorIsInfinity = UInt64.max
            for window in 0..<Self.windowCount {
                let (magnitude, negative) = Self.digit(k.value, window: window)
                // The scan runs on vector registers, an entry's x and y one SIMD4 each: as
                // eight scalar accumulators it spilled to the stack and took a third of k·G.
                var x = SIMD4<UInt64>()
                var y = SIMD4<UInt64>()
                var offset = window * Self.entriesPerWindow * Self.limbsPerEntry * MemoryLayout<UInt64>.stride
                for index in 0..<Self.entriesPerWindow {
                    let mask = SIMD4(repeating: Self.equalMask(UInt64(index + 1), magnitude))
                    x |= entries.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt64>.self) & mask
                    y |= entries.loadUnaligned(fromByteOffset: offset + 32, as: SIMD4<UInt64>.self) & mask
                    offset += Self.limbsPerEntry * MemoryLayout<UInt64>.stride
                }
                let positiveY = P256FieldElement(montgomery: UInt256(y[0], y[1], y[2], y[3]))
                let point = P256AffinePoint(
                    x: P256FieldElement(montgomery: UInt256(x[0], x[1], x[2], x[3])),
                    y: P256FieldElement.select(negative, positiveY.negated, positiveY))
                let sum = accumulator.addingUnchecked(point)
                let candidate = P256JacobianPoint.select(accumulatorIsInfinity, P256JacobianPoint(point), sum)
                let digitIsZero = Self.equalMask(magnitude, 0)
                accumulator = P256JacobianPoint.select(digitIsZero, accumulator, candidate)
                accumulatorIsInfinity &= digitIsZero
            }
            return accumulator
        }
    }

    /// k·G for a public k in [0, n-1] (variable time), as ECDSA verification needs.
    func multiply(publicScalar k: P256Scalar) -> P256JacobianPoint {
        limbs.withUnsafeBufferPointer { table in
            var accumulator = P256JacobianPoint.infinity
            for window in 0..<Self.windowCount {
                let (magnitude, negative) = Self.digit(k.value, window: window)
                guard magnitude != 0 else { continue }
                let offset = (window * Self.entriesPerWindow + Int(magnitude) - 1) * Self.limbsPerEntry
                let point = Self.entry(table, offset)
                accumulator = accumulator.adding(negative == 0 ? point : point.negated)
            }
            return accumulator
        }
    }
}
