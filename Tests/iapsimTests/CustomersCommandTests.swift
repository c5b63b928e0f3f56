import Foundation
import IAPSimKit
import Testing

@testable import iapsim

/// `iapsim accounts` and `--account` from the shell: a store's customers, each with its own
/// purchases, and the one-line errors for names that cannot be customers.
@Suite struct CustomersCommandTests {
    @Test func eachCustomerHasItsOwnPurchasesAndTheListSaysSo() throws {
        let harness = Harness()
        #expect(harness.run("accounts", "add", "alice", "--storefront", "JPN").status == 0)
        #expect(harness.run("--account", "alice", "buy", "com.example.app.pro.monthly", "--yes").status == 0)
        harness.environment["IAPSIM_ACCOUNT"] = "bob"
        #expect(harness.run("buy", "com.example.app.book", "--yes").status == 0)  // bob is added by buying
        harness.environment["IAPSIM_ACCOUNT"] = nil
        let listed = try harness.json("accounts")["accounts"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["name"] as? String } == ["default", "alice", "bob"])
        #expect(listed.map { $0["storefront"] as? String } == ["USA", "JPN", "USA"])
        #expect(listed.map { $0["transactionCount"] as? Int } == [0, 1, 1])
        #expect(listed.map { $0["activeSubscriptions"] as? Int } == [0, 1, 0])
        let bob = try harness.json("--account", "bob", "transactions")["transactions"] as? [[String: Any]] ?? []
        #expect(bob.map { $0["id"] as? UInt64 } == [2_000_000_000_001])
        #expect((try harness.json("transactions")["transactions"] as? [Any])?.isEmpty == true)
        // Notifications: the customer's, or the whole outbox.
        let mine = try harness.json("--account", "alice", "notifications")["notifications"] as? [[String: Any]] ?? []
        #expect(mine.map { $0["transactionID"] as? UInt64 } == [1_000_000_000_001])
        let all = try harness.json("notifications", "--all-accounts")["notifications"] as? [Any] ?? []
        #expect(all.count == 2)
        // A clock move is the app's: both see it.
        #expect(harness.run("--account", "bob", "clock", "advance", "P1D").status == 0)
        let aliceClock = try harness.json("--account", "alice", "clock")["date"] as? String
        #expect(aliceClock == (try harness.json("clock")["date"] as? String))
    }

    @Test func removingAsksNamesAndRefuses() throws {
        let harness = Harness()
        #expect(harness.run("accounts", "add", "alice").status == 0)
        let again = harness.run("accounts", "add", "alice")
        #expect(again.status == 0 && again.stdout.contains("already has"))
        let unknown = harness.run("accounts", "remove", "carol", "--yes")
        #expect(unknown.status == 64 && unknown.stderr.contains("no customer named carol"))
        let permanent = harness.run("accounts", "remove", "default", "--yes")
        #expect(permanent.status == 64 && permanent.stderr.contains("cannot be removed"))
        harness.terminal = true
        harness.answers = ["n"]
        #expect(harness.run("accounts", "remove", "alice").status != 0)
        #expect(FileManager().fileExists(atPath: harness.stateDirectory + "/accounts/alice/purchases.json"))
        harness.answers = ["y"]
        #expect(harness.run("accounts", "remove", "alice").status == 0)
        #expect(!FileManager().fileExists(atPath: harness.stateDirectory + "/accounts/alice"))
        #expect((try harness.json("accounts")["accounts"] as? [Any])?.count == 1)
    }

    @Test(arguments: [
        ["--account", "../x", "status"], ["--account", ".hidden", "status"], ["--account", "a b", "status"],
        ["accounts", "add", "a/b"], ["accounts", "remove"], ["accounts", "frobnicate"],
        ["accounts", "add", "x", "extra"],
    ])
    func aBadNameOrActionIsAOneLineUsageError(arguments: [String]) {
        let result = Harness().run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
    }

    @Test func aBadEnvironmentNameIsAOneLineUsageError() {
        let result = Harness(environment: ["IAPSIM_ACCOUNT": "no/slash"]).run("status")
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: IAPSIM_ACCOUNT no/slash: not a customer name"))
    }

    @Test func lookingAtAnUnknownCustomerAddsNothing() {
        let harness = Harness()
        #expect(harness.run("--account", "ghost", "status").status == 0)
        #expect(!FileManager().fileExists(atPath: harness.stateDirectory + "/accounts/ghost"))
    }
}
