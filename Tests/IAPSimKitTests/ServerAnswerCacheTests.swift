import Foundation
import IAPSimCrypto
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// `serve` answers a read asked again, in the same simulated millisecond, from the same
/// version of the state, without making it again (`AnswerKey`); and never hides a change:
/// one made from a shell, an armed error, a token that has expired.
@Suite struct ServerAnswerCacheTests {
    /// A server over the folder of `shell` (the command line: it buys and refunds), with a
    /// store of its own whose files have settled as soon as they are written (its cache's clock
    /// a minute ahead, as a server's files are a few seconds after a command): every read it
    /// answers may be kept. The simulated clock follows the harness's clock, which moves only
    /// when a test moves it: until then every request falls in one simulated millisecond.
    private struct Server {
        let shell: ServerAPIHarness
        let api: AppStoreServerAPI

        init() throws {
            shell = try ServerAPIHarness()
            let clock = shell.clock
            let store = StateStore(
                location: shell.session.store.location, cache: StateCache(now: { StateCache.realNow() + 60 }))
            api = AppStoreServerAPI(
                session: StoreSession(store: store, now: { clock.now }, catalogSettings: shell.catalog.store.settings),
                signer: .init(identity: ServerAPIHarness.identity), verifier: BearerTokenVerifier(),
                realNow: { Date() })
        }

        /// Get Transaction Info for `id`.
        func transactionInfo(_ id: UInt64, authorization: String = ServerAPIHarness.authorization) -> APIResponse {
            api.respond(
                APIRequest(
                    method: "GET", pathComponents: ["inApps", "v1", "transactions", String(id)], query: [],
                    authorization: authorization, body: []))
        }
    }

    /// The signed transaction of a Get Transaction Info answer, decoded.
    private func payload(_ response: APIResponse) throws -> JSONValue {
        try ServerAPIHarness.payload(try JSONValue.parse(response.body)["signedTransactionInfo"]?.stringValue)
    }

    @Test func aReadAskedAgainIsAnsweredOnceMade() throws {
        let server = try Server()
        let bought = try server.shell.buy("fx.levels")
        let first = server.transactionInfo(bought.id)
        #expect(first.status == 200)
        #expect(server.transactionInfo(bought.id) == first)
        #expect(server.api.answers.count == 1, "the second answer was made again")
        #expect(server.transactionInfo(bought.id + 1000).status == 404)
        #expect(server.api.answers.count == 1, "an error is made for each request")
    }

    @Test func aChangeFromAShellIsSeenOnTheNextRequestInTheSameMillisecond() throws {
        let server = try Server()
        let bought = try server.shell.buy("fx.levels")
        #expect(try payload(server.transactionInfo(bought.id))["revocationDate"] == nil)
        _ = try server.shell.session.refund(bought.id, reason: .other)
        let after = try payload(server.transactionInfo(bought.id))
        #expect(after["revocationDate"] != nil)
        #expect(try payload(server.transactionInfo(bought.id)) == after)
        #expect(server.api.answers.count == 2)
    }

    @Test func aStateJustWrittenIsReadForEveryRequest() throws {
        // The harness's own server: its files were written a moment ago and have not settled,
        // so a `stat` cannot tell a later change of the same size within one tick of the clock.
        let shell = try ServerAPIHarness()
        let bought = try shell.buy("fx.levels")
        for _ in 0..<2 { #expect(shell.call("GET", "inApps/v1/transactions/\(bought.id)").status == 200) }
        #expect(shell.api.answers.count == 0)
    }

    @Test func anErrorArmedAfterAnAnswerWasKeptIsMet() throws {
        let server = try Server()
        let bought = try server.shell.buy("fx.levels")
        let kept = server.transactionInfo(bought.id)
        _ = try server.shell.session.armServerFault(ServerFault(.error(.generalInternalRetryable), remaining: 1))
        #expect(server.transactionInfo(bought.id).status == 500)
        // The fault is used up and its file gone: the answer is the one kept.
        #expect(server.transactionInfo(bought.id) == kept)
    }

    @Test func aTokenThatExpiredIsRefusedThoughItsAnswerWasKept() throws {
        let server = try Server()
        let bought = try server.shell.buy("fx.levels")
        #expect(server.transactionInfo(bought.id).status == 200)
        let expired =
            "Bearer "
            + BearerTokenMint.token(
                bundleID: "com.example.app", issuerID: "i", keyID: "K", key: try P256PrivateKey.generate(),
                now: Date().addingTimeInterval(-7200))
        #expect(server.transactionInfo(bought.id, authorization: expired).status == 401)
    }

    @Test func anotherMillisecondIsAnotherAnswer() throws {
        let server = try Server()
        let bought = try server.shell.buy("fx.levels")
        let first = try payload(server.transactionInfo(bought.id))
        server.shell.clock.advance(seconds: 0.001)
        let next = try payload(server.transactionInfo(bought.id))
        #expect(next["signedDate"] != first["signedDate"])
        #expect(server.api.answers.count == 2)
    }
}
