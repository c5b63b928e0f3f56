import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// A commit intent that reads but is not one iapsim writes is acted on in no way: it could cut
/// a journal to nothing, wedge every write, or replace `store.json`. It is kept aside and said.
/// Temp files kills leave are removed at the next recovery.
@Suite struct IntentValidationTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession

    init() throws {
        catalog = try Support.validCatalog()
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
        for _ in 0..<2 { _ = try session.buy(try catalog.purchasableProduct("fx.coins"), in: catalog) }
    }

    var location: StateLocation { session.store.location }

    private func bytes(_ path: String) -> [UInt8]? { FileManager().contents(atPath: path).map { [UInt8]($0) } }

    /// Writes an intent: the current snapshot (its members, the old `commit` left out) with `commit`.
    private func plant(_ commit: StateCommit) throws {
        let snapshot = try JSONValue.parse(try #require(bytes(location.statePath)))
        guard case .object(let members) = snapshot else { throw CancellationError() }
        let intent = commit.intent(.object(members.filter { $0.0 != StateCommit.member }))
        try Data(intent).write(to: URL(fileURLWithPath: session.store.commitPath))
    }

    private func expectRejected(_ commit: StateCommit, _ expected: String) throws {
        let journal = bytes(location.journalPath)
        let snapshot = bytes(location.statePath)
        let app = bytes(location.appStatePath)
        try plant(commit)
        let intent = bytes(session.store.commitPath)
        #expect {
            _ = try session.store.read()
        } throws: { error in
            guard case .rejectedIntent(let path, let kept, let reason) = error as? StateError else { return false }
            return path == session.store.commitPath && kept == path + ".rejected" && reason.contains(expected)
        }
        #expect(bytes(location.journalPath) == journal, "the journal is as committed")
        #expect(bytes(location.statePath) == snapshot && bytes(location.appStatePath) == app)
        #expect(bytes(session.store.commitPath + ".rejected") == intent, "kept aside, untouched")
        #expect(!FileSystem.entryExists(session.store.commitPath))
        #expect(try session.store.transactions().count == 2, "the next command reads the state")
    }

    /// An append from 0 whose checksum does not match was undone by cutting the journal to 0:
    /// the whole history gone.
    @Test func anAppendFromBeforeTheCommittedMarkIsNeverUndone() throws {
        let length = UInt64(try #require(bytes(location.journalPath)).count)
        try expectRejected(
            StateCommit(
                effects: [.append(file: StateLocation.journalFileName, from: 0, to: length, checksum: 1)],
                snapshot: StateLocation.fileName),
            "its append to transactions.jsonl")
    }

    @Test func anIntentIsNeverRenamedOverStoreJSON() throws {
        try expectRejected(
            StateCommit(effects: [], snapshot: StateLocation.appStateFileName), "not a customer's snapshot")
    }

    @Test(arguments: [
        ("accounts", "no change removes"), ("purchases.json.lock", "no change removes"),
        ("accounts/bob/store.json", "no change removes"), ("accounts/x/y/purchases.json", "no change removes"),
    ])
    func aRemovalOfAFileNoChangeRemovesIsRefused(file: String, expected: String) throws {
        try FileManager().createDirectory(atPath: location.directory + "/accounts", withIntermediateDirectories: true)
        try expectRejected(StateCommit(effects: [.remove(file: file)], snapshot: nil), expected)
    }

    @Test func anAppendToAFileThatIsNoJournalOrPastItsMarkIsRefused() throws {
        let length = UInt64(try #require(bytes(location.journalPath)).count)
        try expectRejected(
            StateCommit(
                effects: [.append(file: "customers.json", from: 0, to: 1, checksum: 1)],
                snapshot: StateLocation.fileName),
            "not a journal")
        try expectRejected(
            StateCommit(
                effects: [.append(file: StateLocation.journalFileName, from: length, to: length + 5, checksum: 1)],
                snapshot: StateLocation.fileName),
            "its own mark")
        try expectRejected(
            StateCommit(
                effects: [.append(file: "accounts/bob/transactions.jsonl", from: 0, to: 5, checksum: 1)],
                snapshot: StateLocation.fileName),
            "without that customer's snapshot")
    }

    @Test func theTargetsAChangeWritesAreKnown() {
        for file in ["purchases.json", "transactions.jsonl", "transactions.idx", "accounts/bob/purchases.json"] {
            #expect(StateCommit.isRemovable(file), "\(file)")
        }
        for file in ["store.json", "customers.json", "notifications.jsonl"] { #expect(StateCommit.isRemovable(file)) }
        for file in [
            "accounts/bob/notifications.jsonl", "accounts/default/purchases.json", "server-errors.json", "a/b",
        ] {
            #expect(!StateCommit.isRemovable(file), "\(file)")
        }
    }

    /// A kill mid-write left `.NAME.XXXXXX` temp files that stayed for good beside files only
    /// some commands write (`customers.json`, `server-errors.json`, the intent).
    @Test func tempFilesAKillLeftAreRemovedAtTheNextRecovery() throws {
        let stale = [
            ".customers.json.abcDEF", ".store.json.A1b2C3", ".purchases.json.next.zzzzzz", ".server-errors.json.q1w2e3",
        ]
        let kept = [".customers.json.toolong1", "customers.json.abcDEF", ".notes.abcdef"]
        for name in stale + kept { try Data("x".utf8).write(to: URL(fileURLWithPath: location.directory + "/" + name)) }
        _ = try session.buy(try catalog.purchasableProduct("fx.coins"), in: catalog)
        for name in stale { #expect(!FileSystem.entryExists(location.directory + "/" + name), "\(name)") }
        for name in kept { #expect(FileSystem.entryExists(location.directory + "/" + name), "\(name)") }
    }
}
