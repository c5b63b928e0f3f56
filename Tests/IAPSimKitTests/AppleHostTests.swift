import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// Through a tunnel to one of Apple's hosts, the host names the environment ("App Store
/// Server API": "Base URL"; "verifyReceipt"): data of the other environment is answered as
/// Apple answers it — the API does not know the transaction, `/verifyReceipt` says 21007 or
/// 21008 — decided in the library on the request's own view of the settings.
@Suite struct AppleHostTests {
    let h: ServerAPIHarness
    let device = UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000ABCD")!

    init() throws { h = try ServerAPIHarness() }

    @Test func theAPIOfTheOtherEnvironmentDoesNotKnowTheTransaction() throws {
        let bought = try h.buy("fx.levels")
        let path = "inApps/v1/transactions/\(bought.id)"
        // Sandbox data (the setting's default): the sandbox hosts answer it, production's do not.
        for host in [AppleHost.apiSandbox, .apiSandboxApple] {
            #expect(h.call("GET", path, host: host).status == 200, "\(host)")
        }
        for host in [AppleHost.api, .apiApple] {
            let answer = h.call("GET", path, host: host)
            #expect(answer.status == 404 && answer.errorCode == 4_040_010, "\(host)")
        }
        // The next request reads the setting again: Production's data is production's.
        _ = try h.session.setSetting(.environment, to: "Production")
        #expect(h.call("GET", path, host: .api).status == 200)
        #expect(h.call("GET", path, host: .apiSandbox).errorCode == 4_040_010)
    }

    @Test func aRequestWithoutATokenIsUnauthorizedOnEveryHost() {
        let answer = h.call("GET", "inApps/v1/transactions/1", host: .api, authorization: nil)
        #expect(answer.status == 401 && answer.body == nil)
    }

    @Test func verifyReceiptOfTheOtherEnvironmentSaysWhichOneToAsk() throws {
        try h.buy("fx.plus.monthly")
        let receipt = try h.session.appReceipt(StoreSession.ReceiptRequest(deviceIdentifier: device, environment: nil))
        let signed = try ServerAPIHarness.identity.signReceipt(receipt)
        let endpoint = VerifyReceiptEndpoint(
            session: h.session, signer: StoreSession.Signer(identity: ServerAPIHarness.identity))
        let body = JSONValue.object([("receipt-data", .string(Data(signed).base64EncodedString()))]).bytes(
            compact: true)
        func status(_ host: AppleHost?) throws -> JSONValue? {
            try JSONValue.parse(endpoint.respond(method: "POST", body: body, host: host))["status"]
        }
        #expect(try status(nil) == .int(0))
        #expect(try status(.sandbox) == .int(0))
        #expect(try status(.buy) == .int(21007))  // a test receipt sent to production
    }
}
