/// JWS "ES256" (RFC 7518 §3.4): ECDSA P-256 over SHA-256 with the raw 64-byte r‖s
/// signature, Base64URL-encoded.
public enum ES256 {
    /// The JWS "alg" header value.
    public static let algorithm = "ES256"

    /// The JWS signing input ASCII(BASE64URL(header) ‖ "." ‖ BASE64URL(payload)).
    public static func signingInput(header: some Sequence<UInt8>, payload: some Sequence<UInt8>) -> String {
        Base64URL.encode(header) + "." + Base64URL.encode(payload)
    }

    /// Signs a JWS signing input and returns the Base64URL signature segment.
    public static func sign(signingInput: some StringProtocol, with key: P256PrivateKey) -> String {
        Base64URL.encode(key.signature(for: Array(signingInput.utf8)).rawRepresentation)
    }

    /// Builds a compact JWS "header.payload.signature" from the header and payload bytes
    /// (typically JSON).
    public static func compactSerialization(
        header: some Sequence<UInt8>, payload: some Sequence<UInt8>, key: P256PrivateKey
    ) -> String {
        let input = signingInput(header: header, payload: payload)
        return input + "." + sign(signingInput: input, with: key)
    }

    /// A protected header for many signatures: encoded, and run through SHA-256, once. A
    /// signer whose header does not change (an `x5c` certificate chain can be most of a
    /// signed payload's bytes) then hashes only each payload.
    public struct Header: Sendable {
        /// `BASE64URL(header) ‖ "."`, the start of every signing input.
        let prefix: String
        /// SHA-256 with `prefix` already fed in.
        let hashed: SHA256

        /// Prepares `header` (the JSON bytes of the protected header) for signing payloads.
        public init(_ header: some Sequence<UInt8>) {
            prefix = Base64URL.encode(header) + "."
            var hasher = SHA256()
            hasher.update(prefix.utf8)
            hashed = hasher
        }

        /// The compact JWS of `payload` under this header, the same as
        /// `compactSerialization(header:payload:key:)` gives.
        public func sign(payload: some Sequence<UInt8>, key: P256PrivateKey) -> String {
            let encoded = Base64URL.encode(payload)
            var hasher = hashed
            hasher.update(encoded.utf8)
            return prefix + encoded + "." + Base64URL.encode(key.signature(finishing: hasher).rawRepresentation)
        }
    }

    /// Checks a Base64URL signature segment over a JWS signing input; malformed Base64URL or
    /// a signature that is not exactly 64 bytes is simply invalid.
    public static func isValidSignature(
        _ signature: some StringProtocol, signingInput: some StringProtocol, publicKey: P256PublicKey
    ) -> Bool {
        guard let raw = try? Base64URL.decode(signature),
            let parsed = try? ECDSASignature(rawRepresentation: raw)
        else { return false }
        return publicKey.isValidSignature(parsed, for: Array(signingInput.utf8))
    }

    /// Checks a compact JWS "header.payload.signature" and returns the decoded payload when
    /// the signature verifies (the header's "alg" is the caller's to check).
    public static func verifiedPayload(ofCompactSerialization jws: String, publicKey: P256PublicKey) -> [UInt8]? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            isValidSignature(parts[2], signingInput: parts[0] + "." + parts[1], publicKey: publicKey)
        else { return nil }
        return try? Base64URL.decode(parts[1])
    }
}
