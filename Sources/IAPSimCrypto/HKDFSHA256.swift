/// HKDF with HMAC-SHA-256 (RFC 5869): the extract-then-expand key derivation TLS 1.3's key
/// schedule is built from.
///
/// Hand-written, for test data only.
public enum HKDFSHA256 {
    /// The most bytes one expansion can produce: 255 blocks of 32 (RFC 5869 §2.3).
    public static let maximumOutputByteCount = 255 * SHA256.byteCount

    /// HKDF-Extract: HMAC(salt, IKM). An empty salt stands for 32 zero bytes, which HMAC's key
    /// padding makes the same thing.
    /// - Returns: the 32-byte pseudorandom key.
    public static func extract(salt: some Sequence<UInt8>, inputKeyMaterial: some Sequence<UInt8>) -> [UInt8] {
        HMACSHA256.authenticationCode(for: inputKeyMaterial, key: salt)
    }

    /// HKDF-Expand: T(1) ‖ T(2) ‖ … cut to `outputByteCount`, T(i) = HMAC(PRK, T(i−1) ‖ info ‖ i).
    /// - Throws: `CryptoError.invalidOutputLength` for a negative count or one over 8160.
    public static func expand(
        pseudorandomKey: some Sequence<UInt8>, info: some Sequence<UInt8>, outputByteCount: Int
    ) throws(CryptoError) -> [UInt8] {
        guard outputByteCount >= 0, outputByteCount <= maximumOutputByteCount else {
            throw .invalidOutputLength(outputByteCount)
        }
        let keyed = HMACSHA256(key: pseudorandomKey)
        let infoBytes = Array(info)
        var output = [UInt8]()
        output.reserveCapacity(outputByteCount + SHA256.byteCount)
        var previous = [UInt8]()
        var counter: UInt8 = 1
        while output.count < outputByteCount {
            var mac = keyed
            mac.update(previous)
            mac.update(infoBytes)
            mac.update(CollectionOfOne(counter))
            previous = mac.finalize()
            output.append(contentsOf: previous)
            counter &+= 1
        }
        return Array(output.prefix(outputByteCount))
    }
}
