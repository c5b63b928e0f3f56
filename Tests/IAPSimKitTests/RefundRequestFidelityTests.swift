import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// A refund request asks for consumption information for every product type, and Send
/// Consumption Information holds a prorated refund of a one-time product to a percentage.
/// Apple's pages disagree on the first: "notificationType" still names consumables and
/// auto-renewable subscriptions, the newer "ConsumptionRequest" and "Send Consumption
/// Information" (App Store Server API 1.19) take "any type of product"; iapsim follows the newer.
@Suite struct RefundRequestFidelityTests {
    let h: ServerAPIHarness

    init() throws { h = try ServerAPIHarness() }

    private func lastNotification() throws -> ServerNotification {
        try #require(try h.session.notifications().last?.notification)
    }

    @Test(arguments: ["fx.coins", "fx.levels", "fx.plus.yearly"])
    func everyProductTypeIsAskedForConsumptionInformation(_ productID: String) throws {
        let bought = try h.buy(productID)
        _ = try h.session.requestRefund(bought.id, reason: .fulfillmentIssue)
        let request = try lastNotification()
        #expect(request.kind == .consumptionRequest && request.transaction?.id == bought.id)
        #expect(request.consumptionRequestReason == .fulfillmentIssue)
    }

    /// The notification always carries a `consumptionRequestReason`: OTHER when the customer
    /// gave none, and the pending request records the same.
    @Test func aRequestWithoutAReasonSaysOther() throws {
        let bought = try h.buy("fx.levels")
        let pending = try h.session.requestRefund(bought.id, reason: nil)
        #expect(pending.reason == .other)
        let request = try lastNotification()
        #expect(request.kind == .consumptionRequest && request.consumptionRequestReason == .other)
        let context = SigningContext(
            bundleID: "com.example.app", appAppleID: nil, environment: .localTesting, signedDate: request.date,
            appTransactionID: "1")
        let payload = NotificationPayload.payload(request, context: context, identity: ServerAPIHarness.identity)
        #expect(payload["data"]?["consumptionRequestReason"] == .string("OTHER"))
    }

    /// "consumptionPercentage": with GRANT_PRORATED a one-time product needs a percentage
    /// above 0, so one left out is ConsumptionPercentageOutOfRangeError; an auto-renewable
    /// subscription takes none (the App Store works it out).
    @Test func grantProratedWithoutAPercentageIsRefusedForOneTimeProducts() throws {
        let coins = try h.buy("fx.coins")
        let levels = try h.buy("fx.levels")
        let yearly = try h.buy("fx.plus.yearly")
        func send(_ id: UInt64) -> ServerAPIHarness.Answer {
            h.call(
                "PUT", "inApps/v2/transactions/consumption/\(id)",
                body: .object([
                    ("customerConsented", .bool(true)), ("sampleContentProvided", .bool(false)),
                    ("deliveryStatus", .string("DELIVERED")), ("refundPreference", .string("GRANT_PRORATED")),
                ]))
        }
        for id in [coins.id, levels.id] {
            let refused = send(id)
            #expect(refused.status == 400 && refused.errorCode == 4_000_000)
            #expect(
                refused.body?["errorMessage"]?.stringValue?.hasPrefix("ConsumptionPercentageOutOfRangeError") == true)
        }
        #expect(send(yearly.id).status == 202)
    }
}
