import Foundation

/// Checks the `Authorization: Bearer <JWT>` of an App Store Server API request as Apple
/// documents it ("Generating JSON Web Tokens for API requests"): ES256, `aud`
/// `appstoreconnect-v1`, `bid` the app's bundle identifier, an `iss`, and an `exp` no more than
/// an hour ahead. With the developer's key (the `.p8` file), the signature must verify with its
/// public key and `kid` must name it; without one, any well-formed token is accepted.
public struct BearerTokenVerifier: Sendable {
    public var publicKey: P256PublicKey?
    public var keyID: String?
    public var issuerID: String?

    public init(publicKey: P256PublicKey? = nil, keyID: String? = nil, issuerID: String? = nil) {
        self.publicKey = publicKey
        self.keyID = keyID
        self.issuerID = issuerID
    }

    /// Why a token is refused; the server answers 401 either way.
    public enum Refusal: Error, Equatable, Sendable {
        case missing
        case malformed(String)
        case rejected(String)
    }

    /// Checks `header` (the whole `Authorization` value) at `now` (real time: tokens expire on
    /// the wall clock) for `bundleID`.
    public func verify(authorization header: String?, bundleID: String, now: Date) throws(Refusal) {
        guard let header, header.lowercased().hasPrefix("bearer ") else { throw .missing }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("not a JWT") }
        func object(_ part: Substring) throws(Refusal) -> JSONValue {
            guard let bytes = try? Base64URL.decode(part), let value = try? JSONValue.parse(bytes), value.objectValue != nil
            else { throw .malformed("a segment is not base64url JSON") }
            return value
        }
        let head = try object(parts[0])
        let claims = try object(parts[1])
        guard head["alg"]?.stringValue == ES256.algorithm else { throw .rejected("alg is not ES256") }
        guard claims["aud"]?.stringValue == "appstoreconnect-v1" else { throw .rejected("aud is not appstoreconnect-v1") }
        guard claims["bid"]?.stringValue == bundleID else { throw .rejected("bid is not \(bundleID)") }
        guard let issuer = claims["iss"]?.stringValue, !issuer.isEmpty else { throw .rejected("no iss") }
        if let issuerID, issuer != issuerID { throw .rejected("iss is not \(issuerID)") }
        guard case .number(let text)? = claims["exp"], let exp = Double(text) else { throw .rejected("no exp") }
        let seconds = now.timeIntervalSince1970
        guard exp > seconds else { throw .rejected("the token has expired") }
        guard exp <= seconds + 3600 + 60 else { throw .rejected("exp is more than an hour ahead") }
        if let publicKey {
            if let keyID, head["kid"]?.stringValue != keyID { throw .rejected("kid is not \(keyID)") }
            guard ES256.isValidSignature(parts[2], signingInput: parts[0] + "." + parts[1], publicKey: publicKey) else {
                throw .rejected("the signature does not verify with the key")
            }
        }
    }
}
