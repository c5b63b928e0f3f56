import Foundation

/// Every failure of the cryptography code: malformed encodings, invalid keys, bad certificates.
///
/// Readers of untrusted bytes (Base64, PEM, DER, keys, signatures, certificates) throw one of
/// these instead of trapping, so a caller can report what was wrong and carry on.
public enum CryptoError: Error, Equatable, Sendable {
    /// Base64 or Base64URL text has a character outside its alphabet at `offset`.
    case invalidBase64Character(offset: Int)
    /// Base64 or Base64URL text has a length no encoder produces, or wrong padding.
    case invalidBase64Length(Int)
    /// Base64 or Base64URL text carries padding or leftover bits where a canonical encoder has none.
    case nonCanonicalBase64

    /// No PEM block with the wanted label (or with any label, when `label` is nil).
    case pemBlockNotFound(label: String?)
    /// A PEM block is damaged: the reason says how.
    case malformedPEM(String)

    /// DER input ended before the element that starts at `offset` was complete.
    case derTruncated(offset: Int)
    /// DER length at `offset` is indefinite, not minimal, or too large.
    case derInvalidLength(offset: Int)
    /// DER tag at `offset` uses the high-tag-number form, which nothing here needs.
    case derUnsupportedTag(offset: Int)
    /// DER element at `offset` has tag `found` where `expected` was required.
    case derUnexpectedTag(expected: UInt8, found: UInt8, offset: Int)
    /// DER input has `count` bytes left after the element(s) that should have filled it.
    case derTrailingBytes(count: Int)
    /// DER input nests constructed elements deeper than `limit`.
    case derNestingTooDeep(limit: Int)
    /// A DER primitive's contents break the encoding rules for its type: the reason says which.
    case derInvalidValue(String)

    /// An algorithm identifier names an algorithm this code does not implement.
    case unsupportedAlgorithm(String)
    /// A key names an elliptic curve other than P-256.
    case unsupportedCurve(String)
    /// A private key is not a scalar in [1, n-1], or its encoded public key does not match it.
    case invalidPrivateKey(String)
    /// A public key is not a valid P-256 point (wrong length or form, off the curve, infinity).
    case invalidPublicKey(String)
    /// An RSA key is malformed or inconsistent (n not p·q, d not inverting e …): the reason says how.
    case invalidRSAKey(String)
    /// A signature has the wrong length or is not a strict DER ECDSA-Sig-Value.
    case invalidSignatureEncoding(String)
    /// A digest passed to a sign or verify call is not 32 bytes.
    case invalidDigestLength(Int)
    /// A certificate is structurally valid DER but breaks X.509 rules: the reason says which.
    case invalidCertificate(String)
    /// A certificate field cannot be encoded (a date out of range, a character outside a string type).
    case unencodableValue(String)
    /// The random source produced no acceptable value after many attempts (it is broken).
    case randomSourceFailed

    /// A symmetric key or X25519 input has a length the algorithm does not take.
    case invalidKeyLength(Int)
    /// An AEAD nonce has a length the algorithm does not take (AES-GCM: empty).
    case invalidNonceLength(Int)
    /// An AEAD tag did not match: the ciphertext, the associated data or the tag was altered.
    case authenticationFailure
    /// A key derivation was asked for more (or fewer) bytes than it can give.
    case invalidOutputLength(Int)
    /// A key exchange produced a value that must be refused (all zeros, infinity): the reason says which.
    case invalidSharedSecret(String)
}

extension CryptoError: LocalizedError {
    /// A sentence naming what was wrong, for the user to read.
    public var errorDescription: String? {
        switch self {
        case .invalidBase64Character(let offset):
            return "Base64 text has an invalid character at offset \(offset)."
        case .invalidBase64Length(let length):
            return "Base64 text of length \(length) cannot be decoded."
        case .nonCanonicalBase64:
            return "Base64 text is not canonical (unexpected padding or non-zero leftover bits)."
        case .pemBlockNotFound(let label):
            if let label { return "No PEM block labelled \"\(label)\" was found." }
            return "No PEM block was found."
        case .malformedPEM(let reason):
            return "Malformed PEM: \(reason)."
        case .derTruncated(let offset):
            return "DER data is truncated at offset \(offset)."
        case .derInvalidLength(let offset):
            return "DER length at offset \(offset) is invalid (indefinite, not minimal, or too long)."
        case .derUnsupportedTag(let offset):
            return "DER tag at offset \(offset) uses the unsupported high-tag-number form."
        case .derUnexpectedTag(let expected, let found, let offset):
            return String(
                format: "DER element at offset %d has tag 0x%02x, expected 0x%02x.",
                offset, Int(found), Int(expected))
        case .derTrailingBytes(let count):
            return "DER data has \(count) unexpected trailing byte(s)."
        case .derNestingTooDeep(let limit):
            return "DER data nests deeper than \(limit) levels."
        case .derInvalidValue(let reason):
            return "Invalid DER value: \(reason)."
        case .unsupportedAlgorithm(let oid):
            return "Unsupported algorithm \(oid)."
        case .unsupportedCurve(let oid):
            return "Unsupported elliptic curve \(oid); only P-256 (1.2.840.10045.3.1.7) is supported."
        case .invalidPrivateKey(let reason):
            return "Invalid P-256 private key: \(reason)."
        case .invalidPublicKey(let reason):
            return "Invalid P-256 public key: \(reason)."
        case .invalidRSAKey(let reason):
            return "Invalid RSA key: \(reason)."
        case .invalidSignatureEncoding(let reason):
            return "Invalid ECDSA signature encoding: \(reason)."
        case .invalidDigestLength(let length):
            return "A SHA-256 digest is 32 bytes, not \(length)."
        case .invalidCertificate(let reason):
            return "Invalid X.509 certificate: \(reason)."
        case .unencodableValue(let reason):
            return "Cannot encode value: \(reason)."
        case .randomSourceFailed:
            return "The random number generator produced no usable value."
        case .invalidKeyLength(let length):
            return "A key of \(length) bytes has the wrong length for this algorithm."
        case .invalidNonceLength(let length):
            return "A nonce of \(length) bytes has the wrong length for this algorithm."
        case .authenticationFailure:
            return "The authentication tag does not match: the data was altered or the key is wrong."
        case .invalidOutputLength(let length):
            return "A key derivation cannot produce \(length) bytes."
        case .invalidSharedSecret(let reason):
            return "The key exchange failed: \(reason)."
        }
    }
}
