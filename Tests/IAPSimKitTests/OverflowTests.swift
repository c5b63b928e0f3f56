import Foundation
import Testing

@testable import IAPSimKit

/// Numbers that grow with every purchase are checked: at the largest value their type holds
/// the command stops with `StateError.corrupt` naming the field, and nothing is written.
/// Negative balances and counts in a file are corrupt when read.
@Suite struct OverflowTests {
    let catalog: Catalog
    let session: StoreSession

    init() throws {
        catalog = try Catalog.load(CatalogSource(storeKitPath: Support.fixture("valid.storekit"), productIDsPath: nil))
        session = StoreSession(
            store: Support.store(), now: { Support.fixedDate }, catalogSettings: catalog.store.settings)
    }

    private func buy(_ id: String, quantity: PurchaseQuantity = 1) throws {
        _ = try session.buy(try catalog.purchasableProduct(id), quantity: quantity, in: catalog)
    }

    /// `body` fails with `.corrupt` on the state file, its detail naming `field`, and leaves
    /// the files as they were.
    private func expectCorrupt(naming field: String, _ body: () throws -> Void) throws {
        let before = try? Data(contentsOf: URL(fileURLWithPath: session.store.location.statePath))
        let journal = try? Data(contentsOf: URL(fileURLWithPath: session.store.location.journalPath))
        let error = try #require(throws: StateError.self) { try body() }
        guard case .corrupt(let path, let detail) = error else {
            Issue.record("expected corrupt, got \(error)")
            return
        }
        #expect(path == session.store.location.statePath)
        #expect(detail.contains(field), "\(detail)")
        #expect((try? Data(contentsOf: URL(fileURLWithPath: session.store.location.statePath))) == before)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: session.store.location.journalPath))) == journal)
    }

    @Test func aBalanceNearIntMaxCannotGrow() throws {
        try buy("fx.coins")
        try session.store.update { $0.app.consumables["fx.coins"] = Int.max - 1 }
        try buy("fx.coins")  // exactly to Int.max
        #expect(try session.store.read().app.consumables["fx.coins"] == Int.max)
        try expectCorrupt(naming: "app.consumables.fx.coins") { try buy("fx.coins") }
    }

    @Test func tenAtOnceOnALargeBalance() throws {
        try session.store.update { $0.app.consumables["fx.coins"] = Int.max - 5 }
        try expectCorrupt(naming: "app.consumables.fx.coins") { try buy("fx.coins", quantity: 10) }
        try buy("fx.coins", quantity: 5)
        #expect(try session.store.read().app.consumables["fx.coins"] == Int.max)
    }

    @Test func transactionIdentifiersRunOut() throws {
        try session.store.update { $0.account.nextTransactionID = .max }
        try expectCorrupt(naming: "account.nextTransactionID") { try buy("fx.levels") }
        #expect(throws: PurchaseState.Overflow.self) {
            var state = PurchaseState(account: .init(nextTransactionID: .max))
            _ = try state.takeTransactionID()
        }
    }

    @Test func theTransactionCountRunsOut() throws {
        try session.store.update { $0.account.transactionCount = .max }
        try expectCorrupt(naming: "account.transactionCount") { try buy("fx.levels") }
    }

    /// A renewal takes an identifier too: catching up at the limit stops, it does not trap.
    @Test func aRenewalAtTheLastIdentifierStops() throws {
        try buy("fx.plus.yearly")
        try session.store.update { $0.account.nextTransactionID = .max }
        try expectCorrupt(naming: "account.nextTransactionID") {
            _ = try session.advanceClock(by: DateComponents(year: 2))
        }
    }

    /// A journal line past the snapshot whose identifier is the largest: replaying it cannot
    /// take the next one.
    @Test func aJournalAtTheLastIdentifierIsCorrupt() throws {
        let store = session.store
        try store.update { $0.app.deliver("x") }
        let line =
            "{\"id\": 18446744073709551615, \"originalID\": 1, \"productID\": \"fx.coins\", \"productType\": \"consumable\", "
            + "\"purchaseDate\": \"2026-01-15T12:00:00Z\", \"originalPurchaseDate\": \"2026-01-15T12:00:00Z\", "
            + "\"price\": \"0.99\", \"currency\": \"USD\", \"storefrontCountryCode\": \"USA\"}\n"
        try Data(line.utf8).write(to: URL(fileURLWithPath: store.location.journalPath))
        let error = try #require(throws: StateError.self) { try store.read() }
        guard case .corrupt(let path, let detail) = error else {
            Issue.record("expected corrupt, got \(error)")
            return
        }
        #expect(path == store.location.journalPath)
        #expect(detail.contains("18446744073709551615"))
    }

    @Test(arguments: [
        ("\"consumables\": {\"fx.coins\": -1}", "app.consumables.fx.coins"),
        ("\"transactionCount\": -3", "account.transactionCount"),
        ("\"quantity\": 0", "simulation.pending[0].quantity"),
        ("\"quantity\": -2", "simulation.pending[0].quantity"),
    ])
    func negativeNumbersInAFileAreCorrupt(member: String, field: String) throws {
        let consumables = member.hasPrefix("\"consumables\"") ? member : "\"consumables\": {}"
        let count = member.hasPrefix("\"transactionCount\"") ? member : "\"transactionCount\": 0"
        let quantity = member.hasPrefix("\"quantity\"") ? member : "\"quantity\": 1"
        let text = """
            {"schemaVersion": 2,
             "app": {"purchasedProductIdentifiers": [], \(consumables)},
             "account": {"nextTransactionID": 2, \(count), "journalLength": 0, "current": []},
             "simulation": {"pending": [{"id": 1, "productID": "fx.coins", "productType": "consumable",
               \(quantity), "reason": "askToBuy", "requestDate": "2026-01-15T12:00:00Z"}]}}
            """
        let store = session.store
        try FileManager().createDirectory(atPath: store.location.directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: store.location.statePath))
        let error = try #require(throws: StateError.self) { try store.read() }
        guard case .corrupt(_, let detail) = error else {
            Issue.record("expected corrupt, got \(error)")
            return
        }
        #expect(detail.contains(field), "\(detail)")
    }

    @Test func aJournalQuantityBelowOneIsCorrupt() throws {
        let store = session.store
        try FileManager().createDirectory(atPath: store.location.directory, withIntermediateDirectories: true)
        let line =
            "{\"id\": 1, \"originalID\": 1, \"productID\": \"fx.coins\", \"productType\": \"consumable\", "
            + "\"purchaseDate\": \"2026-01-15T12:00:00Z\", \"originalPurchaseDate\": \"2026-01-15T12:00:00Z\", "
            + "\"purchasedQuantity\": -4, \"price\": \"0.99\", \"currency\": \"USD\", \"storefrontCountryCode\": \"USA\"}\n"
        try Data(line.utf8).write(to: URL(fileURLWithPath: store.location.journalPath))
        let error = try #require(throws: StateError.self) { try store.read() }
        guard case .corrupt(_, let detail) = error else {
            Issue.record("expected corrupt, got \(error)")
            return
        }
        #expect(detail.contains("purchasedQuantity"), "\(detail)")
    }
}
