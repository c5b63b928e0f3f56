import Foundation
import IAPSimCrypto
import IAPSimJSON

/// Checks the `Authorization: Bearer <JWT>` of an App Store Server API request as Apple
/// documents it ("Generating JSON Web Tokens for API requests"): ES256, `aud`
/// `appstoreconnect-v1`, `bid` the app's bundle identifier, an `iss`, and an `exp` no more than
/// an hour ahead. With the developer's key (the `.p8` file), the signature must verify with its
/// public key and `kid` must name it; without one, any well-formed token is accepted.
///
/// A backend signs one token and sends it for many requests, so a token that passed is
/// remembered with its `exp` and `bid`: the next request with it checks only those against
/// the clock and the app, not the signature again.
public struct BearerTokenVerifier: Sendable {
    public let publicKey: P256PublicKey?
    public let keyID: String?
    public let issuerID: String?
    private let accepted = AcceptedTokens()

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
        guard let header else { throw .missing }
        if let known = accepted.claims(of: header) {
            return try Self.checkTime(exp: known.exp, now: now, bid: known.bid, bundleID: bundleID)
        }
        guard header.lowercased().hasPrefix("bearer ") else { throw .missing }
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
        guard let bid = claims["bid"]?.stringValue else { throw .rejected("no bid") }
        guard let issuer = claims["iss"]?.stringValue, !issuer.isEmpty else { throw .rejected("no iss") }
        if let issuerID, issuer != issuerID { throw .rejected("iss is not \(issuerID)") }
        guard case .number(let text)? = claims["exp"], let exp = Double(text) else { throw .rejected("no exp") }
        try Self.checkTime(exp: exp, now: now, bid: bid, bundleID: bundleID)
        if let publicKey {
            if let keyID, head["kid"]?.stringValue != keyID { throw .rejected("kid is not \(keyID)") }
            guard ES256.isValidSignature(parts[2], signingInput: parts[0] + "." + parts[1], publicKey: publicKey) else {
                throw .rejected("the signature does not verify with the key")
            }
        }
        accepted.remember(header, exp: exp, bid: bid)
    }

    /// What may change between two requests with the same token: the time, and the app the
    /// server answers for.
    private static func checkTime(exp: Double, now: Date, bid: String, bundleID: String) throws(Refusal) {
        guard bid == bundleID else { throw .rejected("bid is not \(bundleID)") }
        let seconds = now.timeIntervalSince1970
        guard exp > seconds else { throw .rejected("the token has expired") }
        guard exp <= seconds + 3600 + 60 else { throw .rejected("exp is more than an hour ahead") }
    }
}

/// Tokens that passed every check but the time, by their whole `Authorization` value; at
/// most `limit`, forgotten all at once when full (a backend rotates tokens hourly).
private final class AcceptedTokens: @unchecked Sendable {
    private let lock = NSLock()
    private var claims: [String: (exp: Double, bid: String)] = [:]
    private let limit = 256

    func claims(of header: String) -> (exp: Double, bid: String)? {
        lock.withLock { claims[header] }
    }

    func remember(_ header: String, exp: Double, bid: String) {
        lock.withLock {
            if claims.count >= limit { claims.removeAll(keepingCapacity: true) }
            claims[header] = (exp, bid)
        }
    }
}
