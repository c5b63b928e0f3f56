import Foundation
import IAPSimCrypto
import IAPSimJSON

/// Checks the `Authorization: Bearer <JWT>` of an App Store Server API request as Apple
/// documents it ("Generating JSON Web Tokens for API requests"): ES256, `aud`
/// `appstoreconnect-v1`, `bid` the app's bundle identifier, an `iss`, and an `exp` no more than
/// an hour ahead. An `iat` must be a number of seconds no later than `clockSkew` from now, with
/// `exp` no more than an hour after it ("tokens that expire more than 60 minutes after the time
/// in iat are not valid"); a token without one is accepted, as Apple's own Python library
/// (app-store-server-library 3.1.2) sends none. With the developer's key (the `.p8` file), the
/// signature must verify with its public key and `kid` must name it; without one, any
/// well-formed token is accepted.
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

    /// How far ahead of this machine's clock a token's `iat` (and its `exp`, past the hour) may
    /// be: the backend that signed it may run on another machine.
    public static let clockSkew: Double = 60

    /// Why a token is refused; the server answers 401 either way.
    public enum Refusal: Error, Equatable, Sendable {
        case missing
        case malformed(String)
        case rejected(String)
    }

    /// Checks `header` (the whole `Authorization` value) at `now` (real time: tokens expire on
    /// the wall clock) for `bundleID`.
    public func verify(authorization header: String?, bundleID: String, now: Date) throws(Refusal) {
        let bid = try authenticate(authorization: header, now: now)
        guard bid == bundleID else { throw .rejected("bid is not \(bundleID)") }
    }

    /// Checks everything of `header` but the app it is for, which needs the state: a request is
    /// authenticated before the state is read, so a client without a token learns nothing of
    /// it (not even that it cannot be read).
    /// - Returns: the token's `bid`, for the caller to compare with the app's bundle identifier.
    public func authenticate(authorization header: String?, now: Date) throws(Refusal) -> String {
        guard let header else { throw .missing }
        if let known = accepted.claims(of: header) {
            try Self.checkTime(exp: known.exp, now: now)
            return known.bid
        }
        guard header.lowercased().hasPrefix("bearer ") else { throw .missing }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("not a JWT") }
        func object(_ part: Substring) throws(Refusal) -> JSONValue {
            guard let bytes = try? Base64URL.decode(part), let value = try? JSONValue.parse(bytes),
                value.objectValue != nil
            else { throw .malformed("a segment is not base64url JSON") }
            return value
        }
        let head = try object(parts[0])
        let claims = try object(parts[1])
        guard head["alg"]?.stringValue == ES256.algorithm else { throw .rejected("alg is not ES256") }
        guard claims["aud"]?.stringValue == "appstoreconnect-v1" else {
            throw .rejected("aud is not appstoreconnect-v1")
        }
        guard let bid = claims["bid"]?.stringValue else { throw .rejected("no bid") }
        guard let issuer = claims["iss"]?.stringValue, !issuer.isEmpty else { throw .rejected("no iss") }
        if let issuerID, issuer != issuerID { throw .rejected("iss is not \(issuerID)") }
        guard case .number(let text)? = claims["exp"], let exp = Double(text), exp.isFinite else {
            throw .rejected("no exp")
        }
        try Self.checkTime(exp: exp, now: now)
        if let issued = claims["iat"] {
            guard case .number(let text) = issued, let iat = Double(text), iat.isFinite else {
                throw .rejected("iat is not a number of seconds")
            }
            guard iat <= now.timeIntervalSince1970 + Self.clockSkew else { throw .rejected("iat is in the future") }
            guard exp - iat <= 3600 else { throw .rejected("exp is more than an hour after iat") }
        }
        if let publicKey {
            if let keyID, head["kid"]?.stringValue != keyID { throw .rejected("kid is not \(keyID)") }
            guard ES256.isValidSignature(parts[2], signingInput: parts[0] + "." + parts[1], publicKey: publicKey) else {
                throw .rejected("the signature does not verify with the key")
            }
        }
        accepted.remember(header, exp: exp, bid: bid)
        return bid
    }

    /// What may change between two requests with the same token: the time.
    private static func checkTime(exp: Double, now: Date) throws(Refusal) {
        let seconds = now.timeIntervalSince1970
        guard exp > seconds else { throw .rejected("the token has expired") }
        guard exp <= seconds + 3600 + clockSkew else { throw .rejected("exp is more than an hour ahead") }
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
