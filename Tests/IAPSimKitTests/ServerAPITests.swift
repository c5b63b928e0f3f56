import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// Look Up Order ID (Apple, "Look Up Order ID", "OrderLookupResponse").
@Suite struct OrderLookupAPITests {
    @Test func anUnknownOrderIsStatusOneWithoutSignedTransactions() throws {
        let h = try ServerAPIHarness(environment: .production)
        try h.buy("fx.coins")
        let answer = h.call("GET", "inApps/v1/lookup/MNOSUCHORD")
        #expect(answer.status == 200)
        #expect(answer.body == .object([("status", .int(1))]))
        #expect(answer.body?["signedTransactions"] == nil)
    }

    @Test func anOrderAnswersItsOwnTransaction() throws {
        let h = try ServerAPIHarness(environment: .production)
        try h.buy("fx.coins")
        let monthly = try h.buy("fx.plus.monthly")
        h.clock.advance(days: 40)
        _ = try h.session.status()  // renews up to now
        let renewal = try #require(try h.session.store.chain(monthly.originalID).last)
        #expect(renewal.reason == .renewal)
        let answer = h.call("GET", "inApps/v1/lookup/\(renewal.orderID)")
        #expect(answer.body?["status"] == .int(0))
        let signed = try #require(answer.body?["signedTransactions"]?.arrayValue)
        #expect(try signed.map { try ServerAPIHarness.payload($0.stringValue)["transactionId"] } == [.string(String(renewal.id))])
    }

    /// "This endpoint isn't available in the sandbox environment": no order is valid there.
    @Test func theSandboxHasNoOrders() throws {
        let h = try ServerAPIHarness(environment: .sandbox)
        let coins = try h.buy("fx.coins")
        let answer = h.call("GET", "inApps/v1/lookup/\(coins.orderID)")
        #expect(answer.status == 200 && answer.body == .object([("status", .int(1))]))
        // The session's environment setting decides when the server names none.
        let unset = try ServerAPIHarness()
        let bought = try unset.buy("fx.coins")
        #expect(unset.call("GET", "inApps/v1/lookup/\(bought.orderID)").body?["status"] == .int(1))
        _ = try unset.session.setSetting(.environment, to: "Production")
        #expect(unset.call("GET", "inApps/v1/lookup/\(bought.orderID)").body?["status"] == .int(0))
    }
}
