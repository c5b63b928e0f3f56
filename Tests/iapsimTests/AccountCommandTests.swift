import Foundation
import IAPSimKit
import Testing

@testable import iapsim

/// "Offers and the account" from the shell: `price-increase`, `request-refund`,
/// `refund --decline|--reverse`, `buy --outside-app`, and a storefront change.
@Suite struct AccountCommandTests {
    @Test func theNewCommandsParse() throws {
        #expect(
            try parsed(["price-increase", "com.x.pro", "12.99"], as: PriceIncrease.self).action
                == .announce(productID: "com.x.pro", newPrice: Decimal(string: "12.99")!, requiresConsent: true))
        #expect(
            try parsed(["price-increase", "com.x.pro", "12", "--notify-only"], as: PriceIncrease.self).action
                == .announce(productID: "com.x.pro", newPrice: 12, requiresConsent: false))
        #expect(
            try parsed(["price-increase", "consent", "p"], as: PriceIncrease.self).action == .consent(productID: "p"))
        #expect(
            try parsed(["price-increase", "decline", "p"], as: PriceIncrease.self).action == .decline(productID: "p"))
        let request = try parsed(["request-refund", "3", "--reason", "LEGAL"], as: RequestRefund.self)
        #expect(request.id == 3 && request.reason == .legal)
        #expect(try parsed(["refund", "3", "--decline"], as: Refund.self).action == .decline)
        #expect(try parsed(["refund", "3", "--reverse"], as: Refund.self).action == .reverse)
        let outside = try parsed(["buy", "p", "--outside-app"], as: Buy.self)
        #expect(outside.outsideApp && outside.productID == "p" && outside.request.quantity == .one)
    }

    @Test(arguments: [
        ["price-increase", "p", "1,99"], ["price-increase", "p", "12", "--notify-only", "--consent-required"],
        ["price-increase", "consent", "p", "--notify-only"], ["price-increase", "p"],
        ["request-refund", "3", "--reason", "bored"], ["refund", "3", "--decline", "--reverse"],
        ["refund", "3", "--decline", "--reason", "other"], ["buy", "p", "--outside-app", "--outcome", "cancel"],
        ["restore", "--outside-app"],
    ])
    func badInputIsAOneLineUsageError(arguments: [String]) {
        let result = Harness().run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
    }

    @Test func aPriceIncreaseWaitsForConsentAndShowsInStatus() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        let increase = harness.run("price-increase", "com.example.app.pro.monthly", "14.99")
        #expect(increase.status == 0)
        #expect(increase.stdout.contains("PRICE_INCREASE/PENDING"))
        #expect(harness.run("status").stdout.contains("price increase to 14.99 waiting for consent"))
        let subscription = try #require((try harness.json("status")["subscriptions"] as? [[String: Any]])?.first)
        #expect(subscription["priceIncreaseStatus"] as? String == "pending")
        let lower = harness.run("price-increase", "com.example.app.pro.monthly", "0.99")
        #expect(lower.status == 64)
        #expect(lower.stderr.contains("0.99 is not a price increase"))
        #expect(harness.run("price-increase", "decline", "com.example.app.pro.monthly").status == 0)
        #expect(harness.run("clock", "advance", "P8D").status == 0)
        #expect(harness.run("status").stdout.contains("(didNotConsentToPriceIncrease)"))
        #expect(
            harness.run("notifications", "--type", "EXPIRED/PRICE_INCREASE").stdout.contains("EXPIRED/PRICE_INCREASE"))
    }

    @Test func aRefundRequestIsPendingAndASecondOneIsADuplicate() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.coins100", "--yes").status == 0)
        #expect(harness.run("request-refund", "1", "--reason", "UNINTENDED_PURCHASE").status == 0)
        #expect(harness.run("status").stdout.contains("Refund requests (pending the App Store's decision):"))
        let again = harness.run("request-refund", "1")
        #expect(again.status == 64)
        #expect(again.stderr.contains("Transaction.RefundRequestError.duplicateRequest"))
        let granted = harness.run("refund", "1")
        #expect(granted.stdout.contains("granting the customer's refund request"))
        #expect(harness.run("refund", "1", "--reverse").status == 0)
        #expect(harness.run("refund", "1", "--decline").status == 64)  // no request waits
        let kinds = harness.run("notifications").stdout
        for kind in ["CONSUMPTION_REQUEST", "REFUND ", "REFUND_REVERSED"] { #expect(kinds.contains(kind)) }
    }

    @Test func anOutsidePurchaseIsNotedAtTheNextLaunchOnce() throws {
        let harness = Harness()
        let bought = harness.run("buy", "com.example.app.book", "--outside-app")
        #expect(bought.status == 0)
        #expect(bought.stdout.contains("outside the app"))
        #expect(!bought.stderr.contains("Transaction.updates delivered"))
        #expect(harness.run("list").stderr.contains("Note: Transaction.updates delivered transaction 1"))
        #expect(!harness.run("status").stderr.contains("Transaction.updates delivered"))
    }

    @Test func aStorefrontChangeIsNotedAndListFollowsIt() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.book", "--yes").status == 0)
        let change = harness.run("settings", "set", "storefront", "JPN")
        #expect(change.stderr.contains("the storefront changed from USA to JPN"))
        #expect(harness.run("list").stdout.contains("¥"))
        let transaction = try #require((try harness.json("transactions")["transactions"] as? [[String: Any]])?.first)
        #expect(transaction["storefrontCountryCode"] as? String == "USA")
        #expect(transaction["currency"] as? String == "USD")
    }
}

/// `refund --prorated PERCENT`: a REFUND_PRORATED revocation, the REFUND notification after it.
@Suite struct ProratedRefundCommandTests {
    @Test func refundProratedRefundsPartOfTheTransaction() throws {
        #expect(
            try parsed(["refund", "3", "--prorated", "40"], as: Refund.self).action
                == .grant(.other, try RevocationPercentage(text: "40")))
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        let result = harness.run("refund", "1", "--prorated", "40")
        #expect(result.status == 0)
        #expect(result.stdout.contains("Refunded 40% of transaction 1"))
        let json = try harness.json("transactions")
        let transaction = try #require((json["transactions"] as? [[String: Any]])?.first)
        #expect(transaction["revocationPercentage"] as? String == "40")
        #expect(transaction["revocationType"] as? String == "proratedRefund")
        let jws = harness.run("jws", "transaction", "1", "--json")
        let payload = try #require(
            (try JSONSerialization.jsonObject(with: Data(jws.stdout.utf8)) as? [String: Any])?["payload"]
                as? [String: Any])
        #expect(payload["revocationType"] as? String == "REFUND_PRORATED")
        #expect(payload["revocationPercentage"] as? Int == 40000)
        #expect(harness.run("notifications").stdout.contains("REFUND"))
    }

    @Test(arguments: [
        ["refund", "1", "--prorated", "100"], ["refund", "1", "--prorated", "0"], ["refund", "1", "--prorated", "x"],
        ["refund", "1", "--decline", "--prorated", "40"], ["refund", "1", "--reverse", "--prorated", "40"],
    ])
    func aBadProratedPercentageIsAUsageError(arguments: [String]) {
        let result = Harness().run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
    }
}
