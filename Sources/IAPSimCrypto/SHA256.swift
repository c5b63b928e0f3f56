/// SHA-256 (FIPS 180-4), streaming and one-shot.
///
/// The pending partial block lives in a fixed-size tuple rather than an `Array`, so hashing
/// allocates nothing until `finalize()` returns the digest.
public struct SHA256: Sendable {
    /// Length of a digest in bytes.
    public static let byteCount = 32
    /// Length of the block the compression function consumes, in bytes.
    public static let blockByteCount = 64

    typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    typealias Block = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    private var state: State = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
        0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var pending: Block = (0, 0, 0, 0, 0, 0, 0, 0)
    private var pendingCount = 0
    private var totalByteCount: UInt64 = 0

    /// Creates a hasher with the standard initial state.
    public init() {}

    /// Hashes `data` in one call.
    /// - Returns: the 32-byte digest.
    public static func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    /// Feeds more message bytes.
    public mutating func update(_ data: some Sequence<UInt8>) {
        let handled: Void? = data.withContiguousStorageIfAvailable { buffer in
            update(bufferPointer: UnsafeRawBufferPointer(buffer))
        }
        if handled == nil {
            // Non-contiguous sequences (lazy maps, some Data slices) are copied once.
            let bytes = Array(data)
            bytes.withUnsafeBytes { update(bufferPointer: $0) }
        }
    }

    /// Feeds more message bytes from raw memory.
    public mutating func update(bufferPointer input: UnsafeRawBufferPointer) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        let count = input.count
        totalByteCount &+= UInt64(count)
        var offset = 0
        if pendingCount > 0 {
            let take = Swift.min(Self.blockByteCount - pendingCount, count)
            let start = pendingCount
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress?.advanced(by: start).copyMemory(from: base, byteCount: take)
            }
            pendingCount += take
            offset = take
            if pendingCount == Self.blockByteCount {
                var block = pending
                withUnsafeBytes(of: &block) { raw in
                    if let pointer = raw.baseAddress { Self.compress(&state, pointer) }
                }
                pendingCount = 0
            }
        }
        while count - offset >= Self.blockByteCount {
            Self.compress(&state, base.advanced(by: offset))
            offset += Self.blockByteCount
        }
        if offset < count {
            let rest = count - offset
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress?.copyMemory(from: base.advanced(by: offset), byteCount: rest)
            }
            pendingCount = rest
        }
    }

    /// Returns the digest of everything fed so far; the hasher itself is left unchanged.
    ///
    /// The padding is written straight into the pending block (no temporary arrays): HMAC and
    /// RFC 6979 finalize several short messages per signature.
    public func finalize() -> [UInt8] {
        var state = self.state
        var block = pending
        let bitLength = totalByteCount &* 8
        withUnsafeMutableBytes(of: &block) { bytes in
            // Padding: 0x80, zeros up to 56 mod 64, then the 64-bit big-endian bit length.
            bytes[pendingCount] = 0x80
            for index in (pendingCount + 1)..<Self.blockByteCount { bytes[index] = 0 }
            if pendingCount >= 56 {
                Self.compress(&state, UnsafeRawPointer(bytes.baseAddress!))
                for index in 0..<56 { bytes[index] = 0 }
            }
            bytes.storeBytes(of: bitLength.bigEndian, toByteOffset: 56, as: UInt64.self)
            Self.compress(&state, UnsafeRawPointer(bytes.baseAddress!))
        }
        return [UInt8](unsafeUninitializedCapacity: Self.byteCount) { digest, count in
            let output = UnsafeMutableRawPointer(digest.baseAddress!)
            withUnsafeBytes(of: &state) { words in
                for index in 0..<8 {
                    let word = words.load(fromByteOffset: 4 * index, as: UInt32.self)
                    output.storeBytes(of: word.bigEndian, toByteOffset: 4 * index, as: UInt32.self)
                }
            }
            count = Self.byteCount
        }
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x >> n) | (x << (32 - n))
    }

    /// One round of the compression: d += T1, h = T1 + T2. Callers rotate the roles of the
    /// eight working variables instead of shifting them, so no round copies a register.
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32
    ) {
        // Σ1(e) = rotr(e,6)^rotr(e,11)^rotr(e,25) is on the critical path from one round's e to
        // the next, so its three rotations run side by side and it is added last; Σ0(a) =
        // rotr(a,2)^rotr(a,13)^rotr(a,22) is nested, needing one copy of a instead of three.
        let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
        let t1 = h &+ kw &+ (g ^ (e & (f ^ g))) &+ sigma1
        d &+= t1
        let sigma0 = rotr(rotr(rotr(a, 9) ^ a, 11) ^ a, 2)
        h = t1 &+ sigma0 &+ ((a & b) | (c & (a | b)))
    }

    /// The message schedule's next word W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16],
    /// kept in a ring of sixteen (`index` is t mod 16), plus the round constant K[t].
    @inline(__always)
    private static func scheduled(_ w: UnsafeMutablePointer<UInt32>, _ index: Int, _ k: UInt32) -> UInt32 {
        let x = w[(index + 1) & 15]
        let y = w[(index + 14) & 15]
        let s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
        let s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
        let word = w[index] &+ s0 &+ w[(index + 9) & 15] &+ s1
        w[index] = word
        return word &+ k
    }

    /// Runs the compression function over one 64-byte block at `block`.
    ///
    /// The 64 rounds run eight at a time with the working variables' roles rotated by hand,
    /// which lets them stay in registers (the shifting form spilled them on every round). The
    /// message schedule is computed inside the rounds, sixteen words ahead at most, so the
    /// processor overlaps it with the rounds' own dependency chain (as a separate loop before
    /// them it was a third of the time).
    private static func compress(_ state: inout State, _ block: UnsafeRawPointer) {
        roundConstants.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { buffer in
                let w = buffer.baseAddress!
                for t in 0..<16 {
                    w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self))
                }
                var a = state.0
                var b = state.1
                var c = state.2
                var d = state.3
                var e = state.4
                var f = state.5
                var g = state.6
                var h = state.7
                for t in stride(from: 0, to: 16, by: 8) {
                    round(a, b, c, &d, e, f, g, &h, w[t] &+ k[t])
                    round(h, a, b, &c, d, e, f, &g, w[t + 1] &+ k[t + 1])
                    round(g, h, a, &b, c, d, e, &f, w[t + 2] &+ k[t + 2])
                    round(f, g, h, &a, b, c, d, &e, w[t + 3] &+ k[t + 3])
                    round(e, f, g, &h, a, b, c, &d, w[t + 4] &+ k[t + 4])
                    round(d, e, f, &g, h, a, b, &c, w[t + 5] &+ k[t + 5])
                    round(c, d, e, &f, g, h, a, &b, w[t + 6] &+ k[t + 6])
                    round(b, c, d, &e, f, g, h, &a, w[t + 7] &+ k[t + 7])
                }
                for t in stride(from: 16, to: 64, by: 8) {
                    let i = t & 15
                    round(a, b, c, &d, e, f, g, &h, scheduled(w, i, k[t]))
                    round(h, a, b, &c, d, e, f, &g, scheduled(w, i + 1, k[t + 1]))
                    round(g, h, a, &b, c, d, e, &f, scheduled(w, i + 2, k[t + 2]))
                    round(f, g, h, &a, b, c, d, &e, scheduled(w, i + 3, k[t + 3]))
                    round(e, f, g, &h, a, b, c, &d, scheduled(w, i + 4, k[t + 4]))
                    round(d, e, f, &g, h, a, b, &c, scheduled(w, i + 5, k[t + 5]))
                    round(c, d, e, &f, g, h, a, &b, scheduled(w, i + 6, k[t + 6]))
                    round(b, c, d, &e, f, g, h, &a, scheduled(w, i + 7, k[t + 7]))
                }
                state.0 &+= a
                state.1 &+= b
                state.2 &+= c
                state.3 &+= d
                state.4 &+= e
                state.5 &+= f
                state.6 &+= g
                state.7 &+= h
            }
        }
    }
}
