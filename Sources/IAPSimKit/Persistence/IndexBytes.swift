/// Bytes of the index file, read and written as little-endian integers, each part sealed
/// with a checksum. Readers check sizes against the layout first; an access outside `bytes`
/// is a bug and traps.
struct IndexBytes {
    var bytes: [UInt8]

    init(count: Int) { bytes = [UInt8](repeating: 0, count: count) }
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    mutating func put(_ value: [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<offset + value.count, with: value)
    }

    mutating func put32(_ value: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= bytes.count)
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
    }

    mutating func put64(_ value: UInt64, at offset: Int) {
        precondition(offset >= 0 && offset + 8 <= bytes.count)
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self) }
    }

    func get32(_ offset: Int) -> UInt32 {
        precondition(offset >= 0 && offset + 4 <= bytes.count)
        return bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    func get64(_ offset: Int) -> UInt64 {
        precondition(offset >= 0 && offset + 8 <= bytes.count)
        return bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    }

    /// Writes at `at` the checksum of the bytes from `from` up to it.
    mutating func seal(checksumAt at: Int, from: Int = 0, seed: UInt64) {
        put64(IndexChecksum.of(bytes, from: from, to: at, seed: seed), at: at)
    }

    func isSealed(checksumAt at: Int, from: Int = 0, seed: UInt64) -> Bool {
        at + 8 <= bytes.count && get64(at) == IndexChecksum.of(bytes, from: from, to: at, seed: seed)
    }
}

/// A 64-bit checksum of whole little-endian words: it finds torn, stale and hand-edited
/// parts, not forgeries. Each part has its own seed, mixed with its position, so a record
/// copied to another place or read as a name slot does not check.
enum IndexChecksum {
    static let headerSeed: UInt64 = 0x6961_7073_696D_4844
    static let slotSeed: UInt64 = 0x6961_7073_696D_534C
    static let recordSeed: UInt64 = 0x6961_7073_696D_5243

    /// The checksum of `bytes[from..<to]`, a whole number of 8-byte words.
    static func of(_ bytes: [UInt8], from: Int, to: Int, seed: UInt64) -> UInt64 {
        var hash = seed &* 0x9E37_79B9_7F4A_7C15
        bytes.withUnsafeBytes { raw in
            var offset = from
            while offset + 8 <= to {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                hash = (hash ^ word).rotated(27) &* 0x9E37_79B9_7F4A_7C15 &+ 0x632B_E59B_D9B4_E019
                offset += 8
            }
        }
        // SplitMix64's finaliser: every input bit reaches every output bit.
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 31)
    }

    /// FNV-1a of a name's UTF-8 bytes, for the name slots.
    static func name<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}

extension UInt64 {
    fileprivate func rotated(_ count: UInt64) -> UInt64 { self << count | self >> (64 - count) }
}
