import Foundation
import IAPSimCrypto
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The App Store Server API's front door (issue 22, item 8, and HEAD): a request is
/// authenticated before the state is read; a state it cannot read is a 500 that shows no
/// path; a token's `iat` is checked when it has one.
@Suite struct ServerAPIAuthenticationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// `Bearer header.claims.signature` with these claims (JSON text inside the braces).
    static func token(_ claims: String) -> String {
        func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
        return "Bearer " + b64(#"{"alg":"ES256","kid":"K","typ":"JWT"}"#) + "." + b64("{" + claims + "}") + ".c2ln"
    }

    static func claims(exp: Int = 1_800_000_600, extra: String = "") -> String {
        #""iss":"i","bid":"com.example.app","aud":"appstoreconnect-v1","exp":\#(exp)"# + extra
    }

    private func api(_ session: StoreSession, errors: Collected<String>? = nil) throws -> AppStoreServerAPI {
        let identity = try SigningIdentity.loadOrCreate(in: Support.temporaryDirectory() + "/certs", lockTimeout: 5)
        var api = AppStoreServerAPI(
            session: session, signer: .init(identity: identity), verifier: BearerTokenVerifier(), realNow: { Self.now })
        api.internalError = { error in errors?.append("\(error)") }
        return api
    }

    private func request(_ path: String, method: String = "GET", authorization: String?) -> APIRequest {
        APIRequest(
            method: method, pathComponents: path.split(separator: "/").map(String.init), query: [],
            authorization: authorization, body: [])
    }

    /// A corrupt state answered an unauthenticated request with 500, its body the state file's
    /// absolute path and the parser's words.
    @Test func aCorruptStateIsNoneOfAnUnauthenticatedClientsBusiness() throws {
        let store = Support.store()
        try store.update { _ = $0.app.deliver("a.one") }
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: store.location.statePath))
        let errors = Collected<String>()
        let api = try api(StoreSession(store: store, now: { Self.now }), errors: errors)
        let anonymous = api.respond(request("/inApps/v1/transactions/1", authorization: nil))
        #expect(anonymous.status == 401 && anonymous.body.isEmpty)
        let forged = api.respond(request("/inApps/v1/transactions/1", authorization: "Bearer a.b.c"))
        #expect(forged.status == 401 && forged.body.isEmpty)
        let signedIn = api.respond(request("/inApps/v1/transactions/1", authorization: Self.token(Self.claims())))
        let body = String(decoding: signedIn.body, as: UTF8.self)
        #expect(signedIn.status == 500)
        #expect(body == #"{"errorCode":5000000,"errorMessage":"An unknown error occurred."}"#)
        #expect(!body.contains(store.location.directory))
        // The one who runs the server is told what went wrong.
        #expect(errors.all.count == 1 && errors.all.first?.contains("purchases.json") == true)
    }

    /// `iat` was never looked at: missing, not a number, a year ahead — all passed. Apple's
    /// Python library sends none, so a token without one still passes.
    @Test func aTokensIssueTimeIsChecked() throws {
        let verifier = BearerTokenVerifier()
        func verdict(_ claims: String) -> BearerTokenVerifier.Refusal? {
            do {
                try verifier.verify(authorization: Self.token(claims), bundleID: "com.example.app", now: Self.now)
                return nil
            } catch {
                return error
            }
        }
        #expect(verdict(Self.claims()) == nil)
        #expect(verdict(Self.claims(extra: #","iat":1800000000"#)) == nil)
        #expect(verdict(Self.claims(extra: #","iat":1800000030"#)) == nil, "within the minute of skew")
        #expect(verdict(Self.claims(extra: #","iat":"yesterday""#)) == .rejected("iat is not a number of seconds"))
        #expect(verdict(Self.claims(extra: #","iat":null"#)) == .rejected("iat is not a number of seconds"))
        #expect(verdict(Self.claims(extra: #","iat":1831536000"#)) == .rejected("iat is in the future"))
        #expect(
            verdict(Self.claims(exp: 1_800_003_000, extra: #","iat":1799999000"#))
                == .rejected("exp is more than an hour after iat"))
    }

    /// HEAD got 405 on every endpoint; it is answered as GET (the HTTP layer drops the body).
    @Test func headIsAnsweredAsGet() throws {
        let catalog = try Support.validCatalog()
        let session = StoreSession(store: Support.store(), now: { Self.now }, catalogSettings: catalog.store.settings)
        let product = try #require(catalog.store.products.first { $0.id == "fx.levels" })
        _ = try session.buy(product, in: catalog)
        let api = try api(session)
        let token = Self.token(Self.claims())
        let asGet = api.respond(request("/inApps/v1/transactions/1", authorization: token))
        let asHead = api.respond(request("/inApps/v1/transactions/1", method: "HEAD", authorization: token))
        #expect(asGet.status == 200 && asHead.status == 200)
        let post = request("/inApps/v1/notifications/test", method: "HEAD", authorization: token)
        #expect(api.respond(post).status == 405)
    }
}

/// Values collected from many threads.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}
