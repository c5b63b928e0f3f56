import Foundation
import Testing

@testable import IAPSimKit

/// The journal: every transaction appended once, the snapshot marking how much it includes,
/// and recovery from a crash between the two.
@Suite struct JournalTests {
    let catalog: Catalog
    let store = Support.store()
    let session: StoreSession

    init() throws {
        catalog = try Support.validCatalog()
        session = StoreSession(store: store, now: { Support.fixedDate }, catalogSettings: catalog.store.settings)
    }

    private func buy(_ id: String) throws {
        _ = try session.buy(try catalog.purchasableProduct(id), in: catalog)
    }

    private func journal() throws -> String {
        try String(contentsOfFile: store.location.journalPath, encoding: .utf8)
    }

    @Test func eachPurchaseAppendsOneLine() throws {
        try buy("fx.coins")
        try buy("fx.levels")
        let lines = try journal().split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].contains("\"productID\":\"fx.coins\""))
        let state = try store.read()
        #expect(state.account.journalLength == UInt64(try journal().utf8.count))
        #expect(state.account.transactionCount == 2)
        #expect(state.account.current.map(\.productID) == ["fx.levels"])  // consumables are journal-only
        let mode =
            try FileManager().attributesOfItem(atPath: store.location.journalPath)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test func aRefundAppendsANewVersion() throws {
        try buy("fx.levels")
        _ = try session.refund(1, reason: .other)
        #expect(try journal().split(separator: "\n").count == 2)
        let history = try store.transactions()
        #expect(history.count == 1)
        #expect(history.first?.revocationReason == .other)
    }

    @Test func linesPastTheSnapshotAreReplayedAndDelivered() throws {
        try buy("fx.coins")
        let snapshot = try Data(contentsOf: URL(fileURLWithPath: store.location.statePath))
        try buy("fx.coins")
        try buy("fx.levels")
        // A crash after appending and before the snapshot: the old snapshot, the long journal.
        try snapshot.write(to: URL(fileURLWithPath: store.location.statePath))
        let state = try store.read()
        #expect(state.app.consumables["fx.coins"] == 2)
        #expect(state.app.purchasedProductIdentifiers == ["fx.levels"])
        #expect(state.account.nextTransactionID == 4)
        try buy("fx.coins")  // and the next write carries on from there
        #expect(try store.transactions().map(\.id) == [1, 2, 3, 4])
        #expect(try store.read().app.consumables["fx.coins"] == 3)
    }

    @Test func aTornLastLineIsIgnoredThenCutOff() throws {
        try buy("fx.coins")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: store.location.journalPath))
        handle.seekToEndOfFile()
        handle.write(Data("{\"id\":2,\"produ".utf8))
        try handle.close()
        #expect(try store.read().account.transactionCount == 1)
        try buy("fx.coins")
        let lines = try journal().split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasSuffix("}") })
    }

    @Test func aJournalShorterThanTheSnapshotSaysIsCorrupt() throws {
        try buy("fx.coins")
        try Data().write(to: URL(fileURLWithPath: store.location.journalPath))
        #expect(throws: StateError.self) { try store.read() }
    }

    @Test func aSchemaOneFileMovesItsHistoryToTheJournal() throws {
        try FileManager().createDirectory(atPath: store.location.directory, withIntermediateDirectories: true)
        let legacy = """
            {"schemaVersion": 1, "account": {"nextTransactionID": 2, "transactions": [
              {"id": 1, "originalID": 1, "productID": "fx.levels", "productType": "nonConsumable",
               "purchaseDate": "2026-01-01T00:00:00Z", "originalPurchaseDate": "2026-01-01T00:00:00Z",
               "purchasedQuantity": 1, "isUpgraded": false, "reason": "purchase", "price": "4.99",
               "currency": "USD", "storefrontCountryCode": "USA"}]},
             "app": {"purchasedProductIdentifiers": ["fx.levels"], "consumables": {}}}
            """
        try Data(legacy.utf8).write(to: URL(fileURLWithPath: store.location.statePath))
        #expect(try store.read().account.latest(for: "fx.levels")?.id == 1)
        try buy("fx.coins")
        #expect(try store.transactions().map(\.id) == [1, 2])
        #expect(try String(contentsOfFile: store.location.statePath, encoding: .utf8).contains("\"schemaVersion\": 5"))
    }
}
