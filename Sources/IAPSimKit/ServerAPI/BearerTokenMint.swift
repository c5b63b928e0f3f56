import Foundation
import IAPSimCrypto
import IAPSimJSON

/// A bearer token for the App Store Server API, made as Apple says a developer makes one
/// ("Generating JSON Web Tokens for API requests"): ES256, `kid` the key's id, `iss` the
/// issuer id, `iat` now, `exp` an hour on, `aud` `appstoreconnect-v1`, `bid` the bundle id.
/// For a first `curl` against `iapsim serve`, so nobody needs an openssl recipe.
public enum BearerTokenMint {
    /// - Parameters:
    ///   - key: the developer's private key (the `.p8`); `serve` without `--key-file` accepts
    ///     a token signed with any key.
    ///   - lifetime: seconds from `now` to `exp`; Apple allows at most an hour.
    public static func token(
        bundleID: String, issuerID: String, keyID: String, key: P256PrivateKey, now: Date, lifetime: Double = 3600
    ) -> String {
        let header = JSONValue.object([
            ("alg", .string(ES256.algorithm)), ("kid", .string(keyID)), ("typ", .string("JWT")),
        ])
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let claims = JSONValue.object([
            ("iss", .string(issuerID)), ("iat", .int(issued)), ("exp", .int(issued + Int64(min(lifetime, 3600)))),
            ("aud", .string("appstoreconnect-v1")), ("bid", .string(bundleID)),
        ])
        return ES256.compactSerialization(
            header: header.bytes(compact: true), payload: claims.bytes(compact: true), key: key)
    }
}
