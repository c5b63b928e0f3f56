/// SHA-1 (FIPS 180-4), one-shot.
///
/// Only for what a format fixes to SHA-1 and where no secret depends on it: the app receipt's
/// device hash (Apple, "Validating receipts on the device": SHA-1 of the device identifier, the
/// opaque value and the bundle identifier), and OCSP's CertIDs and responder key hashes (RFC 6960
/// §4.1.1, §4.2.1), which name a certificate or key rather than protect anything. Never for a
/// signature.
public enum SHA1 {
    /// Length of a digest in bytes.
    public static let byteCount = 20

    /// Hashes `data` in one call.
    /// - Returns: the 20-byte digest.
    public static func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        var message = Array(data)
        let bitLength = UInt64(message.count) &* 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for index in 0..<8 { message.append(UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * UInt64(index)))) }
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        var w = [UInt32](repeating: 0, count: 80)
        var offset = 0
        while offset < message.count {
            for t in 0..<16 {
                let i = offset + 4 * t
                w[t] =
                    UInt32(message[i]) << 24 | UInt32(message[i + 1]) << 16 | UInt32(message[i + 2]) << 8
                    | UInt32(message[i + 3])
            }
            for t in 16..<80 { w[t] = rotate(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var (a, b, c, d, e) = h
            for t in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch t {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = rotate(a, 5) &+ f &+ e &+ k &+ w[t]
                (e, d, c, b, a) = (d, c, rotate(b, 30), a, temp)
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
            offset += 64
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(byteCount)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> shift))
            }
        }
        return digest
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
