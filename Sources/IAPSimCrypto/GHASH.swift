/// GCM's universal hash (NIST SP 800-38D §6.4): multiplication by the hash key H in GF(2¹²⁸),
/// with Shoup's 4-bit tables — the sixteen multiples of H by every 4-bit polynomial, and the
/// reduction of each 4 bits shifted out — so a block costs 32 lookups instead of 128
/// conditional shifts.
///
/// Hand-written, for test data only: the lookups are indexed by data and key bits, so timing
/// can leak them through the cache.
struct GHASH: Sendable {
    /// A 128-bit field element as two big-endian halves: `high` holds bytes 0–7.
    struct Element: Sendable {
        var high: UInt64
        var low: UInt64
    }

    /// i·H for every 4-bit i, as the high halves (0–15) then the low halves (16–31); bit
    /// order is GCM's, so "1" is the top bit of the nibble (i = 8 is H itself).
    private let table: [UInt64]

    /// What the bits shifted out at the bottom fold back into: reduction by
    /// x¹²⁸ + x⁷ + x² + x + 1 of each 4-bit remainder, aligned to the top 16 bits.
    private static let reduction: [UInt64] = [
        0x0000, 0x1C20, 0x3840, 0x2460, 0x7080, 0x6CA0, 0x48C0, 0x54E0,
        0xE100, 0xFD20, 0xD940, 0xC560, 0x9180, 0x8DA0, 0xA9C0, 0xB5E0,
    ].map { $0 << 48 }

    /// Prepares the tables for the hash key `h` (the block cipher's encryption of zero).
    init(key h: Element) {
        var high = [UInt64](repeating: 0, count: 16)
        var low = [UInt64](repeating: 0, count: 16)
        var v = h
        high[8] = v.high
        low[8] = v.low
        // H·x, H·x², H·x³ land on 4, 2, 1 (x is one step right in GCM's reflected order).
        var index = 4
        while index > 0 {
            let carry = v.low & 1
            v.low = v.high << 63 | v.low >> 1
            v.high = v.high >> 1 ^ (carry * 0xE100_0000_0000_0000)
            high[index] = v.high
            low[index] = v.low
            index >>= 1
        }
        // Every other multiple is a sum (XOR) of those four.
        for power in [2, 4, 8] {
            for lower in 1..<power {
                high[power + lower] = high[power] ^ high[lower]
                low[power + lower] = low[power] ^ low[lower]
            }
        }
        table = high + low
    }

    /// x·H.
    @inline(__always)
    func multiply(_ x: Element) -> Element {
        table.withUnsafeBufferPointer { table in
            Self.reduction.withUnsafeBufferPointer { reduction in
                @inline(__always) func step(_ zHigh: inout UInt64, _ zLow: inout UInt64, _ nibble: Int) {
                    let remainder = Int(zLow & 0x0F)
                    zLow = zHigh << 60 | zLow >> 4
                    zHigh = zHigh >> 4 ^ reduction[remainder] ^ table[nibble]
                    zLow ^= table[16 + nibble]
                }
                // Bytes 15 down to 0, low nibble before high, Z shifting by 4 between them;
                // the very first nibble needs no shift.
                let last = Int(x.low & 0xFF)
                var zHigh = table[last & 0x0F]
                var zLow = table[16 + (last & 0x0F)]
                step(&zHigh, &zLow, last >> 4)
                var word = x.low >> 8
                for _ in 0..<7 {
                    let byte = Int(word & 0xFF)
                    step(&zHigh, &zLow, byte & 0x0F)
                    step(&zHigh, &zLow, byte >> 4)
                    word >>= 8
                }
                word = x.high
                for _ in 0..<8 {
                    let byte = Int(word & 0xFF)
                    step(&zHigh, &zLow, byte & 0x0F)
                    step(&zHigh, &zLow, byte >> 4)
                    word >>= 8
                }
                return Element(high: zHigh, low: zLow)
            }
        }
    }

    /// Absorbs `bytes` into `state`, the last partial block padded with zeros.
    func update(_ state: inout Element, with bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while bytes.count - offset >= 16 {
            state.high ^= UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            state.low ^= UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            state = multiply(state)
            offset += 16
        }
        if offset < bytes.count {
            var block = (UInt64(0), UInt64(0))
            withUnsafeMutableBytes(of: &block) {
                $0.baseAddress!.copyMemory(from: base + offset, byteCount: bytes.count - offset)
            }
            state.high ^= UInt64(bigEndian: block.0)
            state.low ^= UInt64(bigEndian: block.1)
            state = multiply(state)
        }
    }
}
