/// Precomputed multiples of the generator for fast k·G: for each 4-bit window w (0..<64)
/// and digit d (1...15), the affine point d·2^(4w)·G.
///
/// With every window's multiples stored, k·G needs 64 mixed additions and no doublings.
/// The 61 KB table is computed once on first use (about a millisecond in release builds)
/// rather than shipped as a source literal, which would slow compilation and be unauditable.
struct P256BasePointTable: Sendable {
    static let windowCount = 64
    static let entriesPerWindow = 15
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
            for _ in 0..<4 { windowBase = windowBase.doubled() }
        }
        // Batch inversion (Montgomery's trick): one field inversion for all 960 Z coordinates.
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

    /// The 4-bit digit of `scalar` for window `window`.
    @inline(__always)
    private static func digit(_ scalar: UInt256, window: Int) -> UInt64 {
        let limb: UInt64
        switch window >> 4 {
        case 0: limb = scalar.w0
        case 1: limb = scalar.w1
        case 2: limb = scalar.w2
        default: limb = scalar.w3
        }
        return (limb >> UInt64((window & 15) * 4)) & 0xF
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

    /// k·G in constant time for a secret k in [1, n-1].
    ///
    /// Every window reads all 15 entries and keeps one by mask, and the additions never take
    /// data-dependent branches. For k < n the partial sum can never equal ± the entry being
    /// added (that would need k ≥ n), so the incomplete mixed addition is always correct;
    /// the only special case, a still-zero partial sum, is handled by selection.
    func multiply(_ k: P256Scalar) -> P256JacobianPoint {
        limbs.withUnsafeBufferPointer { table in
            var accumulator = P256JacobianPoint.infinity
            var accumulatorIsInfinity = UInt64.max
            for window in 0..<Self.windowCount {
                let digit = Self.digit(k.value, window: window)
                var x = UInt256.zero
                var y = UInt256.zero
                let windowOffset = window * Self.entriesPerWindow * Self.limbsPerEntry
                for index in 0..<Self.entriesPerWindow {
                    let mask = Self.equalMask(UInt64(index + 1), digit)
                    let offset = windowOffset + index * Self.limbsPerEntry
                    x.w0 |= table[offset] & mask
                    x.w1 |= table[offset + 1] & mask
                    x.w2 |= table[offset + 2] & mask
                    x.w3 |= table[offset + 3] & mask
                    y.w0 |= table[offset + 4] & mask
                    y.w1 |= table[offset + 5] & mask
                    y.w2 |= table[offset + 6] & mask
                    y.w3 |= table[offset + 7] & mask
                }
                let point = P256AffinePoint(x: P256FieldElement(montgomery: x), y: P256FieldElement(montgomery: y))
                let sum = accumulator.addingUnchecked(point)
                let candidate = P256JacobianPoint.select(accumulatorIsInfinity, P256JacobianPoint(point), sum)
                let digitIsZero = Self.equalMask(digit, 0)
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
                let digit = Int(Self.digit(k.value, window: window))
                guard digit != 0 else { continue }
                let offset = (window * Self.entriesPerWindow + digit - 1) * Self.limbsPerEntry
                accumulator = accumulator.adding(Self.entry(table, offset))
            }
            return accumulator
        }
    }
}
