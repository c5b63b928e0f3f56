import Foundation
import Testing

@testable import IAPSimKit

/// `StateStore.erase(force:)`, the erase behind `reset --yes` for a state that
/// cannot be parsed, and the stale temp files an interrupted write leaves.
@Suite struct StateEraseTests {
    private func store(with bytes: String?, journal: String? = nil) throws -> StateStore {
        let store = Support.store()
        try FileManager().createDirectory(atPath: store.location.directory, withIntermediateDirectories: true)
        if let bytes { try Data(bytes.utf8).write(to: URL(fileURLWithPath: store.location.statePath)) }
        if let journal { try Data(journal.utf8).write(to: URL(fileURLWithPath: store.location.journalPath)) }
        return store
    }

    private func exists(_ path: String) -> Bool { FileManager().fileExists(atPath: path) }

    @Test(arguments: [
        "{\"schemaVersion\": 2, \"account\": {\"nextTrans", "garbage \u{0}\u{1}", "", "{\"schemaVersion\": 2}",
        "{\"schemaVersion\": 0}", "[]",
    ])
    func aCorruptStateIsErased(_ bytes: String) throws {
        let store = try store(with: bytes, journal: "not json\n")
        let removed = try store.erase()
        #expect(removed == [store.location.statePath, store.location.journalPath])
        #expect(!exists(store.location.statePath) && !exists(store.location.journalPath))
        #expect(exists(store.location.lockPath))  // the lock file and the folder stay
        #expect(try store.read() == PurchaseState())
    }

    @Test func aCorruptJournalAloneIsErased() throws {
        let store = Support.store()
        _ = try store.update { $0.app.deliver("x") }
        try Data("{\"id\": 1}\n".utf8).write(to: URL(fileURLWithPath: store.location.journalPath))
        #expect(throws: StateError.self) { try store.read() }
        #expect(
            try store.erase() == [
                store.location.statePath, store.location.journalPath, store.location.appStatePath, store.commitLogPath,
            ])
    }

    @Test func aNewerSchemaIsErasedOnlyWhenForced() throws {
        let bytes = "{\"schemaVersion\": 99, \"future\": true}"
        let store = try store(with: bytes)
        #expect(throws: StateError.newerSchema(path: store.location.statePath, version: 99)) {
            try store.erase()
        }
        #expect(try String(contentsOfFile: store.location.statePath, encoding: .utf8) == bytes)
        #expect(try store.erase(force: true) == [store.location.statePath])
        #expect(!exists(store.location.statePath))
    }

    @Test func aReadableStateIsErasedToo() throws {
        let store = Support.store()
        try store.update { try $0.account.record(Self.transaction(1), isNew: true) }
        #expect(
            try store.erase() == [
                store.location.statePath, store.location.journalPath, store.location.indexPath,
                store.location.appStatePath, store.commitLogPath,
            ])
        #expect(try store.erase().isEmpty)
        #expect(try Support.store(in: Support.temporaryDirectory() + "/never-made").erase().isEmpty)
    }

    @Test func aDanglingSymlinkIsRemovedAndNamed() throws {
        let store = try store(with: nil)
        try FileManager().createSymbolicLink(
            atPath: store.location.statePath, withDestinationPath: store.location.directory + "/gone.json")
        #expect(try store.erase() == [store.location.statePath])
    }

    /// An interrupted write leaves `.purchases.json.XXXXXX`: the erase removes and names it,
    /// and the next write cleans it up.
    @Test func staleTempFilesAreRemovedUnderTheLock() throws {
        let store = try store(with: "garbage")
        let directory = store.location.directory
        let stale = [directory + "/.purchases.json.AbC123", directory + "/.purchases.json.zz9ZZ9"]
        let others = [directory + "/.purchases.json.notmine", directory + "/purchases.json.AbC123"]
        for path in stale + others { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
        #expect(try store.erase() == [store.location.statePath] + stale)
        for path in others { #expect(exists(path), "\(path)") }

        for path in stale { try Data("{".utf8).write(to: URL(fileURLWithPath: path)) }
        _ = try store.update { $0.app.deliver("x") }
        for path in stale { #expect(!exists(path), "\(path)") }
        for path in others { #expect(exists(path), "\(path)") }
        #expect(try store.read().app.owns("x"))
    }

    static func transaction(_ id: UInt64) -> Transaction {
        Transaction(
            id: id, originalID: id, productID: "p", productType: .nonConsumable, purchaseDate: Support.fixedDate,
            originalPurchaseDate: Support.fixedDate, price: Decimal(string: "0.99")!, currency: "USD",
            storefrontCountryCode: "USA")
    }
}
