import Foundation
import Testing

@testable import iapsim

/// One finishing rule for every front end: what happens outside the app (an Ask to Buy
/// approval, an interrupted purchase resolved, a purchase on another device, a family share, a
/// renewal) reaches the app unfinished, whichever of the command line, `SKTestSession` or the
/// page made it; only the app's own purchase (`iapsim buy`) is finished by the app's observer
/// under `finish-transactions auto`.
@Suite struct FinishingRuleTests {
    static func unfinished(_ harness: Harness) throws -> [Int] {
        (try harness.json("status")["unfinishedTransactionIDs"] as? [Int]) ?? [-1]
    }

    @Test func theAppsOwnPurchaseIsFinishedByDefault() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.book", "--yes").status == 0)
        #expect(try Self.unfinished(harness) == [])
    }

    @Test func anApprovalFromTheShellWaitsForTheAppToFinishIt() throws {
        let harness = Harness()
        #expect(harness.run("settings", "set", "ask-to-buy", "true").status == 0)
        #expect(harness.run("buy", "com.example.app.book", "--yes").status == 3, "pending")
        #expect(harness.run("approve", "1").status == 0)
        #expect(try Self.unfinished(harness) == [1], "an app that forgets finish() must not pass")
        #expect(harness.run("finish", "1").status == 0)
        #expect(try Self.unfinished(harness) == [])
    }

    @Test func aResolvedInterruptionAPurchaseElsewhereAndARenewalAreUnfinished() throws {
        let harness = Harness()
        #expect(harness.run("settings", "set", "interrupted-purchases", "true").status == 0)
        #expect(harness.run("buy", "com.example.app.book", "--yes").status != 0)
        #expect(harness.run("settings", "set", "interrupted-purchases", "false").status == 0)
        #expect(harness.run("resolve", "1").status == 0)
        #expect(harness.run("buy", "com.example.app.gems500", "--outside-app").status == 0)
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        let before = try Self.unfinished(harness)
        #expect(before.count == 2, "the resolved purchase and the one made elsewhere: \(before)")
        #expect(harness.run("renew", "com.example.app.pro.monthly").status == 0)
        #expect(try Self.unfinished(harness).count == 3, "the renewal too")
    }
}
