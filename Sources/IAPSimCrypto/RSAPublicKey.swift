/// An RSA public key (n, e) that verifies RSASSA-PKCS1-v1_5 signatures with SHA-256
/// (RFC 8017 §8.2.2), as `openssl dgst -sha256 -verify` does.
public struct RSAPublicKey: Sendable {
    let modulus: BigUInt
    let publicExponent: BigUInt
    let montgomery: MontgomeryModulus

    /// Checks n and e as RFC 8017 §3.1 asks of a public key: n odd and at least 512 bits, e
    /// odd, at least 3 and below n.
    init(modulus: BigUInt, publicExponent: BigUInt) throws(CryptoError) {
        guard modulus.isOdd, modulus.bitWidth >= 512 else {
            throw .invalidRSAKey("the modulus is not an odd number of 512 bits or more")
        }
        guard publicExponent.isOdd, publicExponent > BigUInt(1), publicExponent < modulus else {
            throw .invalidRSAKey("the public exponent is not odd, above 1 and below the modulus")
        }
        self.modulus = modulus
        self.publicExponent = publicExponent
        montgomery = MontgomeryModulus(modulus)
    }

    /// The modulus n, big-endian, without leading zeros.
    public var modulusBytes: [UInt8] { modulus.bigEndianBytes }
    /// The public exponent e, big-endian, without leading zeros.
    public var publicExponentBytes: [UInt8] { publicExponent.bigEndianBytes }
    /// The modulus's size in bits (2048 for iapsim's keys).
    public var bitCount: Int { modulus.bitWidth }
    /// k, the modulus's size in bytes: every signature is exactly this long.
    public var byteCount: Int { (modulus.bitWidth + 7) / 8 }

    /// Whether `signature` is the RSASSA-PKCS1-v1_5 SHA-256 signature of `message` under this
    /// key. The check encodes the expected block and compares it whole (RFC 8017 §8.2.2 step
    /// 3–4), rather than parsing the one recovered: so BER-encoded DigestInfos, a DigestInfo
    /// without the NULL parameters, short padding or trailing garbage are all rejected, and a
    /// signature not exactly k bytes long, or not below n, is refused before any arithmetic.
    public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Sequence<UInt8>) -> Bool {
        isValidSignature(signature, digest: SHA256.hash(message))
    }

    /// `isValidSignature(_:for:)` over a precomputed 32-byte SHA-256 digest.
    public func isValidSignature(_ signature: some Collection<UInt8>, digest: [UInt8]) -> Bool {
        guard signature.count == byteCount, digest.count == SHA256.byteCount,
            let expected = RSASSAPKCS1v15.encode(digest: digest, length: byteCount)
        else { return false }
        let s = BigUInt(bigEndianBytes: signature)
        guard s < modulus else { return false }
        let recovered = montgomery.power(s, publicExponent)
        return recovered.bigEndianBytes(count: byteCount) == expected
    }
}

extension RSAPublicKey: Equatable {
    public static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool {
        lhs.modulus == rhs.modulus && lhs.publicExponent == rhs.publicExponent
    }
}

/// EMSA-PKCS1-v1_5 (RFC 8017 §9.2) for SHA-256.
enum RSASSAPKCS1v15 {
    /// The DER DigestInfo prefix for SHA-256 (RFC 8017 §9.2, note 1): SEQUENCE { SEQUENCE {
    /// id-sha256, NULL }, OCTET STRING (32 bytes) }, followed by the digest.
    static let sha256DigestInfoPrefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00,
        0x04, 0x20,
    ]

    /// EM = 0x00 ‖ 0x01 ‖ PS (0xff, at least 8) ‖ 0x00 ‖ DigestInfo, `length` bytes; nil when
    /// `length` is too short for 8 bytes of padding.
    static func encode(digest: [UInt8], length: Int) -> [UInt8]? {
        let digestInfo = sha256DigestInfoPrefix + digest
        guard length >= digestInfo.count + 11 else { return nil }
        return [0x00, 0x01] + [UInt8](repeating: 0xff, count: length - digestInfo.count - 3) + [0x00] + digestInfo
    }
}
