/// The AES block cipher (FIPS 197) with a 128-, 192- or 256-bit key, encryption direction
/// only: GCM, the one mode built on it here, never decrypts a block.
///
/// Hand-written, for test data only. It is table-driven for speed, so its running time
/// depends on the key and data through the cache; iapsim uses it for a simulator's TLS with
/// throwaway keys, never for secrets that matter.
public struct AESBlockCipher: Sendable {
    /// The length of a block in bytes.
    public static let blockByteCount = 16

    /// The expanded key schedule: 4·(rounds + 1) big-endian words.
    let roundKeys: [UInt32]
    /// 10, 12 or 14 for 128-, 192- and 256-bit keys.
    let rounds: Int

    /// Expands `key` (16, 24 or 32 bytes).
    /// - Throws: `CryptoError.invalidKeyLength` for any other length.
    public init(key: some Collection<UInt8>) throws(CryptoError) {
        let key = Array(key)
        guard key.count == 16 || key.count == 24 || key.count == 32 else { throw .invalidKeyLength(key.count) }
        let keyWords = key.count / 4
        rounds = keyWords + 6
        let total = 4 * (rounds + 1)
        let sbox = AESTables.sbox
        func substitute(_ word: UInt32) -> UInt32 {
            UInt32(sbox[Int(word >> 24)]) << 24 | UInt32(sbox[Int(word >> 16 & 0xFF)]) << 16
                | UInt32(sbox[Int(word >> 8 & 0xFF)]) << 8 | UInt32(sbox[Int(word & 0xFF)])
        }
        var words = [UInt32](repeating: 0, count: total)
        for index in 0..<keyWords {
            words[index] =
                UInt32(key[4 * index]) << 24 | UInt32(key[4 * index + 1]) << 16
                | UInt32(key[4 * index + 2]) << 8 | UInt32(key[4 * index + 3])
        }
        var roundConstant: UInt8 = 1
        for index in keyWords..<total {
            var temp = words[index - 1]
            if index % keyWords == 0 {
                temp = substitute(temp << 8 | temp >> 24) ^ UInt32(roundConstant) << 24
                roundConstant = AESTables.multiplyByTwo(roundConstant)
            } else if keyWords > 6, index % keyWords == 4 {
                temp = substitute(temp)
            }
            words[index] = words[index - keyWords] ^ temp
        }
        roundKeys = words
    }

    /// Encrypts one block.
    /// - Returns: the 16-byte ciphertext; nil unless `block` is 16 bytes.
    public func encrypt(block: [UInt8]) -> [UInt8]? {
        guard block.count == Self.blockByteCount else { return nil }
        var output = [UInt8](repeating: 0, count: Self.blockByteCount)
        block.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { encrypt(input.baseAddress!, into: $0.baseAddress!) }
        }
        return output
    }

    /// Encrypts the 16 bytes at `input` into the 16 bytes at `output` (they may be the same).
    @inline(__always)
    func encrypt(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer) {
        let rounds = self.rounds
        AESTables.encryption.withUnsafeBufferPointer { table in
            AESTables.sbox.withUnsafeBufferPointer { sbox in
                roundKeys.withUnsafeBufferPointer { key in
                    var s0 = UInt32(bigEndian: input.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) ^ key[0]
                    var s1 = UInt32(bigEndian: input.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) ^ key[1]
                    var s2 = UInt32(bigEndian: input.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) ^ key[2]
                    var s3 = UInt32(bigEndian: input.loadUnaligned(fromByteOffset: 12, as: UInt32.self)) ^ key[3]
                    @inline(__always) func column(
                        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ roundKey: UInt32
                    ) -> UInt32 {
                        table[Int(a >> 24)] ^ table[256 + Int(b >> 16 & 0xFF)] ^ table[512 + Int(c >> 8 & 0xFF)]
                            ^ table[768 + Int(d & 0xFF)] ^ roundKey
                    }
                    var offset = 4
                    for _ in 1..<rounds {
                        let t0 = column(s0, s1, s2, s3, key[offset])
                        let t1 = column(s1, s2, s3, s0, key[offset + 1])
                        let t2 = column(s2, s3, s0, s1, key[offset + 2])
                        let t3 = column(s3, s0, s1, s2, key[offset + 3])
                        s0 = t0
                        s1 = t1
                        s2 = t2
                        s3 = t3
                        offset += 4
                    }
                    @inline(__always) func last(
                        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ roundKey: UInt32
                    ) -> UInt32 {
                        (UInt32(sbox[Int(a >> 24)]) << 24 | UInt32(sbox[Int(b >> 16 & 0xFF)]) << 16
                            | UInt32(sbox[Int(c >> 8 & 0xFF)]) << 8 | UInt32(sbox[Int(d & 0xFF)])) ^ roundKey
                    }
                    output.storeBytes(of: last(s0, s1, s2, s3, key[offset]).bigEndian, toByteOffset: 0, as: UInt32.self)
                    output.storeBytes(
                        of: last(s1, s2, s3, s0, key[offset + 1]).bigEndian, toByteOffset: 4, as: UInt32.self)
                    output.storeBytes(
                        of: last(s2, s3, s0, s1, key[offset + 2]).bigEndian, toByteOffset: 8, as: UInt32.self)
                    output.storeBytes(
                        of: last(s3, s0, s1, s2, key[offset + 3]).bigEndian, toByteOffset: 12, as: UInt32.self)
                }
            }
        }
    }
}
