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

        /// Why, for the one who runs the client: the 401's `WWW-Authenticate` (RFC 6750) and
        /// the server's log say it; Apple's body stays as Apple sends it (empty).
        public var reason: String {
            switch self {
            case .missing: "no bearer token (Authorization: Bearer <JWT>)"
            case .malformed(let detail): "the token is malformed: \(detail)"
            case .rejected(let detail): detail
            }
        }

        /// `WWW-Authenticate` for a 401 (RFC 6750 §3): no error code when no token came.
        public var challenge: String {
            let realm = #"Bearer realm="App Store Server API""#
            if case .missing = self { return realm }
            let description = reason.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "'")
            return realm + #", error="invalid_token", error_description=""# + description + "\""
        }
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
    ///
    /// Time: a token is good when it is good on the real clock or on the simulated one
    /// (`simulatedNow`, read only for a token that fails on the real clock alone). A backend
    /// under `iapsim clock exec` mints its tokens at the simulated time; one that is not
    /// mints them at the real time; both work.
    /// - Returns: the token's `bid`, for the caller to compare with the app's bundle identifier.
    public func authenticate(
        authorization header: String?, now: Date, simulatedNow: (() -> Date?)? = nil
    ) throws(Refusal) -> String {
        guard let header else { throw .missing }
        if let known = accepted.claims(of: header) {
            try Self.checkTime(exp: known.exp, iat: known.iat, now: now, simulatedNow: simulatedNow)
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
        var iat: Double?
        if let issued = claims["iat"] {
            guard case .number(let text) = issued, let seconds = Double(text), seconds.isFinite else {
                throw .rejected("iat is not a number of seconds")
            }
            guard exp - seconds <= 3600 else { throw .rejected("exp is more than an hour after iat") }
            iat = seconds
        }
        if let publicKey {
            if let keyID, head["kid"]?.stringValue != keyID { throw .rejected("kid is not \(keyID)") }
            guard ES256.isValidSignature(parts[2], signingInput: parts[0] + "." + parts[1], publicKey: publicKey) else {
                throw .rejected("the signature does not verify with the key")
            }
        }
        // The time last: only a token good in every other way has the simulated clock read.
        try Self.checkTime(exp: exp, iat: iat, now: now, simulatedNow: simulatedNow)
        accepted.remember(header, exp: exp, iat: iat, bid: bid)
        return bid
    }

    /// What may change between two requests with the same token: the time. Good on either
    /// clock; refused naming both readings.
    private static func checkTime(exp: Double, iat: Double?, now: Date, simulatedNow: (() -> Date?)?)
        throws(Refusal)
    {
        guard let real = timeProblem(exp: exp, iat: iat, at: now) else { return }
        guard let simulated = simulatedNow?() else { throw .rejected(real) }
        guard let other = timeProblem(exp: exp, iat: iat, at: simulated) else { return }
        throw .rejected(
            "\(real) on the real clock (\(ISO8601Date.string(now))) and \(other) on iapsim's clock "
                + "(\(ISO8601Date.string(simulated)))")
    }

    /// Why the token's times do not hold at `date`; nil when they do.
    private static func timeProblem(exp: Double, iat: Double?, at date: Date) -> String? {
        let seconds = date.timeIntervalSince1970
        if exp <= seconds { return "the token has expired" }
        if exp > seconds + 3600 + clockSkew { return "exp is more than an hour ahead" }
        if let iat, iat > seconds + clockSkew { return "iat is in the future" }
        return nil
    }
}

/// Tokens that passed every check but the time, by their whole `Authorization` value; at
/// most `limit`, forgotten all at once when full (a backend rotates tokens hourly).
private final class AcceptedTokens: @unchecked Sendable {
    private let lock = NSLock()
    private var claims: [String: (exp: Double, iat: Double?, bid: String)] = [:]
    private let limit = 256

    func claims(of header: String) -> (exp: Double, iat: Double?, bid: String)? {
        lock.withLock { claims[header] }
    }

    func remember(_ header: String, exp: Double, iat: Double?, bid: String) {
        lock.withLock {
            if claims.count >= limit { claims.removeAll(keepingCapacity: true) }
            claims[header] = (exp, iat, bid)
        }
    }
}
