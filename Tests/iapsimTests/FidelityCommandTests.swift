import Foundation
import Testing

@testable import iapsim

/// The StoreKit behaviours of Apple's testing guides as a user meets them on the command line:
/// Ask to Buy ("Testing Ask to Buy"), interrupted purchases ("Testing an interrupted
/// purchase"), and Xcode's resets and deletions (`SKTestSession.clearTransactions()`,
/// `resetToDefaultState()`, `deleteTransaction(identifier:)`).
@Suite struct FidelityCommandTests {
    private func pending(_ harness: Harness) throws -> [[String: Any]] {
        try #require(try harness.json("status")["pending"] as? [[String: Any]])
    }

    @Test func askToBuyTwiceIsOneRequestThatExpiresAfter24Hours() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.book", "--outcome", "ask-to-buy").status == 3)
        let again = harness.run("buy", "com.example.app.book", "--outcome", "ask-to-buy", "--json")
        #expect(again.status == 3)
        #expect(again.stdout.contains("\"requestRepeated\": true"))
        let requests = try pending(harness)
        #expect(requests.count == 1)
        #expect(requests.first?["expirationDate"] as? String == "2026-01-16T12:00:00Z")
        #expect(harness.run("clock", "advance", "PT23H").status == 0)
        #expect(try pending(harness).count == 1)
        // Past the 24 hours: the command that gets there says so, and status shows it.
        let advance = harness.run("clock", "advance", "PT1H")
        #expect(
            advance.stderr.contains(
                "Note: the Ask to Buy request 1 for com.example.app.book expired unanswered at 2026-01-16T12:00:00Z: "
                    + "it ended declined, and nothing was charged."))
        #expect(try pending(harness).isEmpty)
        let status = harness.run("status")
        #expect(status.stdout.contains("Expired Ask to Buy requests (declined; nothing was charged):"))
        #expect(!status.stderr.contains("expired unanswered"))  // said once
        let approve = harness.run("approve", "1")
        #expect(approve.status == 64)
        #expect(approve.stderr.contains("transaction 1 is an Ask to Buy request that expired unanswered"))
        #expect(try harness.json("transactions")["expiredRequests"] as? [[String: Any]] != nil)
    }

    @Test func approvingNeverChargesTwice() throws {
        let harness = Harness()
        _ = harness.run("buy", "com.example.app.book", "--outcome", "ask-to-buy")
        _ = harness.run("buy", "com.example.app.book", "--outcome", "ask-to-buy")
        #expect(harness.run("buy", "com.example.app.book", "--yes").status == 0)  // bought meanwhile
        let approved = try harness.json("approve", "1")
        #expect(approved["result"] as? String == "alreadyOwned")
        let transactions = try #require(try harness.json("transactions")["transactions"] as? [[String: Any]])
        #expect(transactions.count == 1)
    }

    @Test func anInterruptedPurchaseFailsWithItsOwnCodeThenArrivesThroughTheUpdates() throws {
        let harness = Harness()
        let interrupted = harness.run("buy", "com.example.app.coins100", "--outcome", "interrupted", "--json")
        #expect(interrupted.status == 6)
        #expect(interrupted.stdout.contains("\"result\": \"interrupted\""))
        #expect(try harness.json("status")["consumables"] as? [String: Int] == [:])
        let resolved = try harness.json("resolve", "1")
        let transaction = try #require(resolved["transaction"] as? [String: Any])
        #expect(transaction["id"] as? Int == 2)  // a new transaction, not the failed purchase
        let launch = harness.run("list")
        #expect(
            launch.stderr.contains(
                "Note: Transaction.updates delivered transaction 2 for com.example.app.coins100, completed outside the app"
            ))
        #expect(!harness.run("status").stderr.contains("Transaction.updates delivered"))  // once
        #expect(HelpText.page(for: .exitCodes).contains("6   interrupted"))
    }

    @Test func resetTransactionsKeepsTheSettingsAndResetSettingsKeepsTheTransactions() throws {
        let harness = Harness()
        _ = harness.run("buy", "com.example.app.book")
        _ = harness.run("settings", "set", "time-rate", "oneRenewalEveryTwoSeconds")
        #expect(harness.run("reset", "--transactions", "--yes").status == 0)
        #expect(try harness.json("status")["transactionCount"] as? Int == 0)
        #expect(harness.run("settings").stdout.contains("oneRenewalEveryTwoSeconds"))
        _ = harness.run("buy", "com.example.app.book")
        #expect(harness.run("reset", "--settings").status == 0)
        #expect(!harness.run("settings").stdout.contains("oneRenewalEveryTwoSeconds"))
        #expect(try harness.json("status")["transactionCount"] as? Int == 1)
        // A bare reset is --all, as before: everything goes.
        _ = harness.run("settings", "set", "ask-to-buy", "true")
        #expect(harness.run("reset", "--yes").status == 0)
        #expect(harness.run("settings").stdout.contains("ask-to-buy                     false"))
        #expect(harness.run("reset", "--transactions", "--settings").status == 64)
    }

    @Test func aDeletedTransactionIsGone() throws {
        let harness = Harness()
        _ = harness.run("buy", "com.example.app.book")
        _ = harness.run("buy", "com.example.app.coins100")
        let deleted = try harness.json("transactions", "delete", "1")
        #expect(deleted["deletedIDs"] as? [Int] == [1])
        let transactions = try #require(try harness.json("transactions")["transactions"] as? [[String: Any]])
        #expect(transactions.map { $0["id"] as? Int } == [2])
        #expect(try harness.json("status")["purchasedProductIdentifiers"] as? [String] == [])
        let again = harness.run("transactions", "delete", "1")
        #expect(again.status == 64)
        #expect(again.stderr == "Error: no transaction or pending purchase 1; see 'iapsim transactions'\n")
    }
}
