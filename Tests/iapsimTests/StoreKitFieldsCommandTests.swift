import Foundation
import Testing

@testable import iapsim

/// StoreKit 2's transaction fields, refunds, purchase options and Family Sharing as a user
/// meets them on the command line.
@Suite struct StoreKitFieldsCommandTests {
    /// Apple, "Product.PurchaseOption.appAccountToken(_:)": a UUID; the signed transaction's
    /// `appAccountToken` is lowercase.
    @Test func theAppAccountTokenIsAUUIDStoredLowercase() throws {
        let harness = Harness()
        let bad = harness.run("buy", "com.example.app.book", "--app-account-token", "not-a-uuid")
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--app-account-token not-a-uuid: expected a UUID"))
        let bought = try harness.json(
            "buy", "com.example.app.book", "--yes", "--app-account-token", "0E8F4F4A-5A3B-4C8E-9D1E-2F3A4B5C6D7E")
        let transaction = try #require(bought["transaction"] as? [String: Any])
        #expect(transaction["appAccountToken"] as? String == "0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e")
        #expect(transaction["environment"] as? String == "Sandbox", "the environment its signed data names")
        #expect(transaction["ownershipType"] as? String == "purchased")
        #expect((transaction["storefront"] as? [String: Any])?["countryCode"] as? String == "USA")
    }

    /// Apple, "refundTransaction(identifier:)": the revoked transaction reaches the app
    /// through `Transaction.updates`; the note says so and what the app's record did.
    @Test func aRefundSaysTransactionUpdatesDeliveredIt() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.book", "--yes").status == 0)
        let refund = harness.run("refund", "1")
        #expect(refund.status == 0)
        #expect(
            refund.stderr.contains(
                "Transaction.updates delivered the revoked transaction 1; the app's record removed "
                    + "com.example.app.book from its purchased products."))
    }

    /// Apple, "Supporting Family Sharing in your app".
    @Test func familySharingFromBuyToRevoke() throws {
        let harness = Harness()
        let refused = harness.run("buy", "com.razeware.inapprage.nightlyrage", "--as-family-member")
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("com.razeware.inapprage.nightlyrage: not family shareable"))
        let shared = try harness.json("buy", "com.example.app.book", "--as-family-member")
        #expect(shared["result"] as? String == "familyShared")
        #expect((shared["transaction"] as? [String: Any])?["ownershipType"] as? String == "familyShared")
        #expect(harness.run("buy", "com.example.app.coins100", "--yes").status == 0)
        let own = harness.run("family", "revoke", "2")
        #expect(own.status == 64)
        #expect(own.stderr.contains("transaction 2 was bought by this account"))
        let revoked = try harness.json("family", "revoke", "1")
        #expect(revoked["result"] as? String == "revoked")
        #expect(revoked["appRecord"] as? String == "productRemoved")
        let notifications = harness.run("notifications", "--type", "REVOKE")
        #expect(notifications.stdout.contains("REVOKE"))
        #expect(harness.run("family", "remove", "1").status == 64)
    }
}

@Suite struct PendingPurchaseJSONTests {
    /// A purchase left waiting for Ask to Buy keeps the app account token it was made with,
    /// and its `--json` form says so: the transaction it becomes will carry it.
    @Test func aPendingPurchaseShowsItsAppAccountToken() throws {
        let harness = Harness()
        let json = try harness.json(
            "buy", "com.example.app.book", "--outcome", "ask-to-buy", "--app-account-token",
            "0E8F4F4A-5A3B-4C8E-9D1E-2F3A4B5C6D7E")
        let pending = try #require(json["pending"] as? [String: Any])
        #expect(pending["appAccountToken"] as? String == "0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e")
        let plain = try harness.json("buy", "com.example.app.coins100", "--outcome", "ask-to-buy")
        #expect((plain["pending"] as? [String: Any])?["appAccountToken"] == nil)
    }
}
