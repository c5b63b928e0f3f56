import Foundation
import IAPSimCrypto
import IAPSimHTTP
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The simulated clock is the one clock of what `serve` answers: a token minted at the
/// simulated time is good (so is one minted at the real time), `Date` is the simulated time,
/// and a 401 says why, naming both clocks.
@Suite struct ServerAPIClockTests {
    static let real = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15
    static let simulated = Date(timeIntervalSince1970: 1_900_000_000)  // 2030-03-17

    private func api() throws -> AppStoreServerAPI {
        let session = StoreSession(store: Support.store(), now: { Self.real })
        _ = try session.setClock(to: Self.simulated)
        _ = try session.freezeClock(true)
        let identity = try SigningIdentity.loadOrCreate(in: Support.temporaryDirectory() + "/certs", lockTimeout: 5)
        return AppStoreServerAPI(
            session: session, signer: .init(identity: identity), verifier: BearerTokenVerifier(), realNow: { Self.real }
        )
    }

    private func request(_ authorization: String?) -> APIRequest {
        APIRequest(
            method: "GET", pathComponents: ["inApps", "v1", "transactions", "1"], query: [],
            authorization: authorization, body: [])
    }

    private func token(at date: Date) throws -> String {
        "Bearer "
            + BearerTokenMint.token(
                bundleID: "com.example.app", issuerID: "i", keyID: "K", key: try P256PrivateKey.generate(), now: date)
    }

    @Test func aTokenMintedOnEitherClockIsGood() throws {
        let api = try api()
        for date in [Self.simulated, Self.real] {
            let response = api.respond(request(try token(at: date)))
            #expect(response.status != 401, "a token minted at \(date)")
        }
    }

    @Test func theDateHeaderIsTheSimulatedTime() throws {
        let response = try api().respond(request(try token(at: Self.simulated)))
        #expect(response.headers["Date"] == HTTPDate.string(Self.simulated))
        #expect(response.headers["Date"] == "Sun, 17 Mar 2030 17:46:40 GMT")
    }

    @Test func a401SaysWhyOnBothClocks() throws {
        let api = try api()
        let stale = api.respond(request(try token(at: Self.real.addingTimeInterval(-7200))))
        #expect(stale.status == 401 && stale.body.isEmpty, "Apple's body: none")
        let challenge = try #require(stale.headers["WWW-Authenticate"])
        #expect(challenge.hasPrefix(#"Bearer realm="App Store Server API", error="invalid_token""#))
        #expect(challenge.contains("the token has expired on the real clock (2027-01-15T08:00:00Z)"))
        #expect(challenge.contains("on iapsim's clock (2030-03-17T17:46:40Z)"))
        let none = api.respond(request(nil))
        #expect(none.headers["WWW-Authenticate"] == #"Bearer realm="App Store Server API""#)
        #expect(none.reason == "no bearer token (Authorization: Bearer <JWT>)")
        let junk = api.respond(request("Bearer x.y"))
        #expect(junk.reason == "the token is malformed: not a JWT")
    }
}
