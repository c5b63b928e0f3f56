import Foundation
import Testing

/// One `status --json` says one `priceIncreaseStatus` for a subscription: in `subscriptions[]`
/// and in its element of the status array (`renewalInfo`), after a price increase that needs
/// consent is announced, declined, agreed to, and after auto-renew is turned off.
@Suite struct PriceIncreaseStatusCommandTests {
    private func statuses(_ harness: Harness) throws -> (subscription: String?, renewalInfo: String?) {
        let json = try harness.json("status")
        let subscription = (json["subscriptions"] as? [[String: Any]])?.first
        let group = (json["subscriptionGroups"] as? [[String: Any]])?.first
        let element = (group?["status"] as? [[String: Any]])?.first
        let renewalInfo = element?["renewalInfo"] as? [String: Any]
        return (subscription?["priceIncreaseStatus"] as? String, renewalInfo?["priceIncreaseStatus"] as? String)
    }

    @Test func subscriptionsAndTheStatusArrayAgree() throws {
        let harness = Harness()
        let product = "com.example.app.pro.monthly"
        #expect(harness.run("buy", product, "--yes").status == 0)
        #expect(harness.run("price-increase", product, "14.99", "--consent-required").status == 0)
        #expect(try statuses(harness) == ("pending", "pending"))
        #expect(harness.run("price-increase", "decline", product).status == 0)
        #expect(try statuses(harness) == ("noIncreasePending", "noIncreasePending"))
        #expect(harness.run("price-increase", "consent", product).status == 0)
        #expect(try statuses(harness) == ("agreed", "agreed"))
        #expect(harness.run("cancel-subscription", product).status == 0)
        #expect(try statuses(harness) == ("noIncreasePending", "noIncreasePending"))
    }
}
