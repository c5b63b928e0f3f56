/// Base64URL without padding (RFC 7515 §2, RFC 4648 §5), as JWS and JWT use it.
public enum Base64URL {
    /// Encodes `bytes` with the URL-safe alphabet and no `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Base64.encode(Array(bytes), alphabet: Base64.urlAlphabet, padded: false)
    }

    /// Decodes unpadded Base64URL strictly.
    ///
    /// Rejects `=` padding, characters outside `A–Z a–z 0–9 - _` (including whitespace and the
    /// standard alphabet's `+ /`), a length of 4k+1, and non-zero leftover bits, so each byte
    /// string has exactly one accepted spelling.
    /// - Throws: `CryptoError.invalidBase64Character`, `.invalidBase64Length` or `.nonCanonicalBase64`.
    public static func decode(_ text: some StringProtocol) throws(CryptoError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        return try Base64.decodeUnpadded(utf8[...], table: Base64.urlDecodeTable)
    }
}
