import Foundation
import Testing

@testable import iapsim

/// Customer mistakes speak: a mistyped name in a read is named with the nearest one, a write
/// that adds a customer says so, another customer's transaction is refused with its owner's
/// name, and a misspelt global option before the command is corrected.
@Suite struct CustomerMistakesTests {
    @Test func aWriteThatAddsACustomerSaysSo() {
        let harness = Harness()
        let first = harness.run("--account", "alice", "buy", "com.example.app.book", "--yes")
        #expect(first.status == 0)
        #expect(first.stderr.contains("Added customer alice"))
        let second = harness.run("--account", "alice", "buy", "com.example.app.coins100", "--yes")
        #expect(!second.stderr.contains("Added customer"), "said once, when added")
    }

    @Test func aReadForAnUnknownCustomerNamesTheNearest() {
        let harness = Harness()
        #expect(harness.run("--account", "alice", "buy", "com.example.app.book", "--yes").status == 0)
        let read = harness.run("--account", "alcie", "status")
        #expect(read.status == 0)
        #expect(read.stderr.contains("the store has no customer 'alcie'"))
        #expect(read.stderr.contains("did you mean 'alice'?"))
        #expect(harness.run("accounts").stdout.contains("alcie") == false, "a read adds no customer")
    }

    @Test func anotherCustomersTransactionIsRefusedWithItsOwner() throws {
        let harness = Harness()
        #expect(harness.run("--account", "alice", "buy", "com.example.app.book", "--yes").status == 0)
        for words in [
            ["refund", "1000000000001"], ["finish", "1000000000001"], ["jws", "transaction", "1000000000001"],
        ] {
            let result = harness.run(words)
            #expect(result.status == 64, "\(words)")
            #expect(
                result.stderr.contains(
                    "transaction 1000000000001 is customer alice's, not default's: add --account alice"))
        }
        #expect(harness.run("refund", "42").stderr.contains("no transaction or pending purchase 42"))
    }

    @Test func aMisspeltGlobalOptionBeforeTheCommandIsCorrected() {
        let result = Harness().run("--acount", "alice", "status")
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: unknown option '--acount'; did you mean '--account'?"))
    }
}
