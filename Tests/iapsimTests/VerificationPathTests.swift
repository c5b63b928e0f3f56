import Foundation
import Testing

@testable import iapsim

/// A consumable bought while transactions arrive unverified: delivered unverified, granted
/// nothing, left unfinished; what the hint says the app can do next works.
@Suite struct VerificationPathTests {
    @Test func anUnverifiedConsumableIsGrantedWhenTheAppFinishesItVerified() throws {
        let harness = Harness()
        #expect(harness.run("settings", "set", "error.verification", "invalidSignature").status == 0)
        let buy = harness.run("buy", "com.example.app.coins100", "--quantity", "2", "--yes")
        #expect(buy.status == 1)
        #expect(buy.stderr.contains("'iapsim finish 1' grants and finishes it"), "\(buy.stderr)")
        #expect(!buy.stderr.contains("restore"), "restore never restores consumables")
        var status = try harness.json("status")
        #expect((status["consumables"] as? [String: Int]) ?? [:] == [:], "granted nothing")
        #expect(status["unfinishedTransactionIDs"] as? [Int] == [1])
        let early = harness.run("finish", "1")
        #expect(early.status == 64 && early.stderr.contains("still does"), "unverified, the app does not finish it")
        #expect(harness.run("settings", "set", "error.verification", "none").status == 0)
        let finish = harness.run("finish", "1")
        #expect(finish.status == 0)
        #expect(finish.stdout.contains("The app granted its 2, verified now."))
        status = try harness.json("status")
        #expect((status["consumables"] as? [String: Int]) == ["com.example.app.coins100": 2])
        #expect(status["unfinishedTransactionIDs"] as? [Int] == [])
    }

    @Test func anUnverifiedNonConsumableStillPointsAtRestore() {
        let harness = Harness()
        #expect(harness.run("settings", "set", "error.verification", "invalidSignature").status == 0)
        let buy = harness.run("buy", "com.example.app.book", "--yes")
        #expect(buy.status == 1)
        #expect(buy.stderr.contains("'iapsim restore' grants it once 'settings set error.verification none'"))
        #expect(harness.run("settings", "set", "error.verification", "none").status == 0)
        #expect(harness.run("restore").status == 0)
        #expect(harness.run("status").stdout.contains("com.example.app.book"))
    }
}
