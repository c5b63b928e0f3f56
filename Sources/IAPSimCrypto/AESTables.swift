/// The AES S-box and the four encryption T-tables (FIPS 197 §5.1), computed once at first use
/// rather than pasted as 5 KiB of literals, so the derivation can be read and checked.
///
/// Hand-written, for test data only: table lookups indexed by secret bytes leak through the
/// cache. That is acceptable for iapsim's throwaway test keys and never for real secrets.
enum AESTables {
    /// SubBytes as a table.
    static let sbox: [UInt8] = {
        var box = [UInt8](repeating: 0, count: 256)
        box[0] = 0x63
        // Walk the multiplicative group with generator 3 (p) and its inverse (q): at each
        // step q = p⁻¹, so the affine transform of q is S(p).
        var p: UInt8 = 1
        var q: UInt8 = 1
        repeat {
            p = p ^ (p << 1) ^ (p & 0x80 != 0 ? 0x1B : 0)
            q ^= q << 1
            q ^= q << 2
            q ^= q << 4
            if q & 0x80 != 0 { q ^= 0x09 }
            let affine = q ^ rotateLeft(q, 1) ^ rotateLeft(q, 2) ^ rotateLeft(q, 3) ^ rotateLeft(q, 4)
            box[Int(p)] = affine ^ 0x63
        } while p != 1
        return box
    }()

    /// Te0…Te3 back to back (1024 words): Te0[x] is the MixColumns column (2s, s, s, 3s) of
    /// s = S(x) as a big-endian word, and Te_i is Te0 rotated right by 8·i bits, so one round
    /// is sixteen lookups and XORs.
    static let encryption: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 1024)
        for index in 0..<256 {
            let s = UInt32(sbox[index])
            let doubled = UInt32(multiplyByTwo(UInt8(s)))
            let word = doubled << 24 | s << 16 | s << 8 | (doubled ^ s)
            table[index] = word
            table[256 + index] = word >> 8 | word << 24
            table[512 + index] = word >> 16 | word << 16
            table[768 + index] = word >> 24 | word << 8
        }
        return table
    }()

    /// x·2 in GF(2⁸) modulo x⁸ + x⁴ + x³ + x + 1.
    static func multiplyByTwo(_ value: UInt8) -> UInt8 {
        (value << 1) ^ (value & 0x80 != 0 ? 0x1B : 0)
    }

    private static func rotateLeft(_ value: UInt8, _ count: UInt8) -> UInt8 {
        (value << count) | (value >> (8 - count))
    }
}
