import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The roll-forward intent every change commits through (`StateCommit`): whatever a crash
/// leaves of a commit, the next command finishes it whole or undoes it whole. Each test makes
/// the files a kill at one step leaves — the state before, the one a whole change leaves, and
/// an intent beside them — and lets the next read recover.
@Suite struct StateCommitTests {
    let catalog: Catalog
    let clock = Support.Clock()

    init() throws {
        catalog = try Support.validCatalog()
    }

    private func session(_ directory: String) -> StoreSession {
        let clock = self.clock
        return StoreSession(
            store: Support.store(in: directory), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func bytes(_ path: String) -> [UInt8]? {
        FileManager().contents(atPath: path).map { [UInt8]($0) }
    }

    private func write(_ bytes: [UInt8]?, to path: String) throws {
        if let bytes {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } else {
            try? FileManager().removeItem(atPath: path)
        }
    }

    /// A folder with a consumable bought, and a copy of it where `change` then ran whole: the
    /// states before and after one change, and the files of both.
    private func beforeAndAfter(_ change: (StoreSession) throws -> Void) throws -> (
        before: StoreSession, after: StoreSession
    ) {
        let before = session(Support.temporaryDirectory() + "/state")
        _ = try before.buy(try catalog.purchasableProduct("fx.coins"), in: catalog)
        let after = session(Support.temporaryDirectory() + "/state")
        try FileManager().createDirectory(atPath: after.store.location.directory, withIntermediateDirectories: true)
        for name in [
            StateLocation.fileName, StateLocation.journalFileName, StateLocation.notificationsFileName,
            StateLocation.appStateFileName,
        ] {
            try write(
                bytes(before.store.location.directory + "/" + name), to: after.store.location.directory + "/" + name)
        }
        try change(after)
        return (before, after)
    }

    private let refund: (StoreSession) throws -> Void = { session in _ = try session.refund(1, reason: .other) }

    /// The state as the next command reads it, and what the history and the outbox list.
    private func seen(_ session: StoreSession) throws -> [String] {
        let state = try session.store.read()
        return [
            "\(state.app)", "\(state.account.journalLength)", "\(state.outbox.journalLength)", "\(state.outbox.count)",
            "\(try session.store.transactions())", "\(try session.store.notificationRecords())",
        ]
    }

    /// The intent a change that went from `before` to `after` (two folders) is written as when
    /// it commits through one — a change that also removes files, or an iapsim before the commit
    /// log: the new snapshot with its commit, appending what `after` adds to each journal and
    /// carrying `after`'s `store.json`.
    private func intent(from before: StateStore, to after: StateStore) throws -> [UInt8] {
        try intent(
            of: StateLocation.fileName, from: try files(before.location.directory),
            to: try files(after.location.directory))
    }

    /// The same for the snapshot `snapshot` (relative to the folder), from the files of a folder
    /// before and after the change.
    private func intent(of snapshot: String, from before: [String: [UInt8]], to after: [String: [UInt8]]) throws
        -> [UInt8]
    {
        let folder = StateCommit.customerFolder(of: snapshot) ?? ""
        var effects: [StateCommit.Effect] = []
        for name in [folder + StateLocation.journalFileName, StateLocation.notificationsFileName] {
            let old = before[name] ?? []
            let new = after[name] ?? []
            guard new.count > old.count else { continue }
            let added = Array(new[old.count...])
            effects.append(
                .append(
                    file: name, from: UInt64(old.count), to: UInt64(new.count),
                    checksum: added.withUnsafeBufferPointer { StateStore.checksum($0) }))
        }
        let store = try after[StateLocation.appStateFileName].map { try JSONValue.parse($0) }
        return StateCommit(effects: effects, snapshot: snapshot, store: store)
            .intent(try JSONValue.parse(try #require(after[snapshot])))
    }

    @Test func anIntentWhoseAppendsAreAllThereIsRolledForward() throws {
        let (before, after) = try beforeAndAfter(refund)
        let store = before.store
        // Killed just before the last rename: the intent (the new snapshot), and both journals
        // appended whole.
        let intent = try intent(from: store, to: after.store)
        try write(intent, to: store.commitPath)
        try write(bytes(after.store.location.journalPath), to: store.location.journalPath)
        try write(bytes(after.store.location.notificationsPath), to: store.location.notificationsPath)
        #expect(try seen(before) == (try seen(after)))
        #expect(try store.read().app.consumables["fx.coins"] ?? 0 == 0)
        #expect(!FileSystem.entryExists(store.commitPath))
        // Renamed over the snapshot as it is: the snapshot with its commit.
        #expect(bytes(store.location.statePath) == intent)
        // The app's part went with it: the outbox's count and mark in `store.json`.
        #expect(bytes(store.location.appStatePath) == bytes(after.store.location.appStatePath))
    }

    @Test func anIntentWithAShortJournalIsRolledBack() throws {
        let (before, after) = try beforeAndAfter(refund)
        let store = before.store
        let old = try seen(before)
        let oldSnapshot = bytes(store.location.statePath)
        let oldJournal = try #require(bytes(store.location.journalPath))
        let newJournal = try #require(bytes(after.store.location.journalPath))
        // Killed mid-append: the transactions journal has part of its new line, the outbox none.
        let torn = Array(newJournal.prefix(oldJournal.count + (newJournal.count - oldJournal.count) / 2))
        try write(try intent(from: store, to: after.store), to: store.commitPath)
        try write(torn, to: store.location.journalPath)
        #expect(try seen(before) == old)
        #expect(bytes(store.location.journalPath) == oldJournal)
        #expect(bytes(store.location.statePath) == oldSnapshot)
        #expect(bytes(store.location.appStatePath) == bytes(before.store.location.appStatePath))
        #expect(!FileSystem.entryExists(store.commitPath))
        // The retry then makes exactly one refund.
        try refund(before)
        #expect(try seen(before) == (try seen(after)))
    }

    @Test func anIntentWhoseJournalIsWholeButWhoseOutboxIsMissingIsRolledBack() throws {
        let (before, after) = try beforeAndAfter(refund)
        let store = before.store
        let old = try seen(before)
        let oldOutbox = bytes(store.location.notificationsPath)
        try write(try intent(from: store, to: after.store), to: store.commitPath)
        try write(bytes(after.store.location.journalPath), to: store.location.journalPath)
        #expect(try seen(before) == old)
        #expect(bytes(store.location.notificationsPath) == oldOutbox)
    }

    @Test func anIntentOverOtherBytesOfTheSameLengthIsRolledBack() throws {
        let (before, after) = try beforeAndAfter(refund)
        let store = before.store
        let old = try seen(before)
        try write(try intent(from: store, to: after.store), to: store.commitPath)
        var journal = try #require(bytes(after.store.location.journalPath))
        let at = try #require(journal.lastIndex(of: UInt8(ascii: "1")))
        journal[at] = UInt8(ascii: "2")
        try write(journal, to: store.location.journalPath)
        try write(bytes(after.store.location.notificationsPath), to: store.location.notificationsPath)
        #expect(try seen(before) == old)
    }

    @Test(arguments: [0, 1, 40, -2])
    func aTornIntentIsRemovedAndTheOldStateStays(keep: Int) throws {
        let (before, after) = try beforeAndAfter(refund)
        let store = before.store
        let old = try seen(before)
        let intent = try intent(from: store, to: after.store)
        try write(Array(intent.prefix(keep >= 0 ? keep : intent.count + keep)), to: store.commitPath)
        #expect(try seen(before) == old)
        #expect(!FileSystem.entryExists(store.commitPath))
    }

    @Test func anIntentWhoseSnapshotDoesNotReadIsRolledBackAndANewerOneIsLeftAlone() throws {
        let (before, after) = try beforeAndAfter(refund)
        let store = before.store
        let old = try seen(before)
        let oldJournal = bytes(store.location.journalPath)
        let intent = String(decoding: try intent(from: store, to: after.store), as: UTF8.self)
        let schema = "\"schemaVersion\": \(PurchaseState.currentSchemaVersion)"
        #expect(intent.contains(schema))
        // Whole appends, but a snapshot that does not read: it cannot be rolled forward.
        try write(
            Array(intent.replacingOccurrences(of: schema, with: "\"schemaVersion\": \"five\"").utf8),
            to: store.commitPath)
        try write(bytes(after.store.location.journalPath), to: store.location.journalPath)
        #expect(try seen(before) == old)
        #expect(bytes(store.location.journalPath) == oldJournal)
        // A newer iapsim's intent is its own to finish: refused, and left as it is.
        let newer = Array(intent.replacingOccurrences(of: schema, with: "\"schemaVersion\": 99").utf8)
        try write(newer, to: store.commitPath)
        #expect(throws: StateError.newerSchema(path: store.commitPath, version: 99)) { try store.read() }
        #expect(bytes(store.commitPath) == newer)
    }

    @Test func aChangeWithOrWithoutLinesLeavesNoIntentAndASnapshotWithoutCommit() throws {
        let (_, after) = try beforeAndAfter { session in
            _ = try session.store.update { $0.app.consumables["fx.coins"] = 7 }
        }
        #expect(!FileSystem.entryExists(after.store.commitPath))
        let text = String(decoding: bytes(after.store.location.statePath) ?? [], as: UTF8.self)
        #expect(!text.contains("\"commit\""))
        // A change with lines commits through the commit log too: the snapshot is written as it is.
        _ = try after.refund(1, reason: .other)
        let written = String(decoding: bytes(after.store.location.statePath) ?? [], as: UTF8.self)
        #expect(!written.contains("\"commit\""))
        #expect(!FileSystem.entryExists(after.store.commitPath))
        #expect((FileSystem.size(after.store.commitLogPath) ?? 0) > UInt64(CommitLog.headerLength))
    }

    @Test func aClearOfTheHistoryIsRolledForwardOnceItsIntentExists() throws {
        let (before, after) = try beforeAndAfter { session in _ = try session.clearTransactions() }
        let store = before.store
        // Killed after the intent and the journal's removal: the rest goes on the next read.
        try write(bytes(after.store.location.statePath), to: store.commitPath)
        try write(nil, to: store.location.journalPath)
        #expect(try seen(before) == (try seen(after)))
        #expect(!FileSystem.entryExists(store.location.notificationsPath))
        #expect(try store.read().account.nextTransactionID == 2)
    }

    @Test func anEraseIsRolledForwardOnceItsIntentExists() throws {
        let (before, _) = try beforeAndAfter { _ in }
        let store = before.store
        let intent = StateCommit(
            effects: [
                .remove(file: StateLocation.journalFileName), .remove(file: StateLocation.notificationsFileName),
                .remove(file: StateLocation.fileName), .remove(file: StateLocation.appStateFileName),
            ],
            snapshot: nil)
        try write(intent.intent(nil), to: store.commitPath)
        #expect(try store.read() == PurchaseState())
        for path in [
            store.location.statePath, store.location.journalPath, store.location.notificationsPath, store.commitPath,
            store.location.appStatePath,
        ] {
            #expect(!FileSystem.entryExists(path), "\(path)")
        }
    }

    @Test func theIntentReadsBackAndRefusesAPathOutOfTheFolder() throws {
        let intent = StateCommit(
            effects: [
                .append(file: "transactions.jsonl", from: 10, to: 20, checksum: UInt64.max),
                .remove(file: "a/b.jsonl"),
            ], snapshot: "accounts/bob/purchases.json", store: .object([("storeVersion", .int(1))]))
        #expect(try StateCommit(intent: intent.intent(.object([("schemaVersion", .int(5))]))) == intent)
        for file in ["../elsewhere", "/etc/passwd", ""] {
            let hostile = StateCommit(effects: [.remove(file: file)], snapshot: nil)
            #expect(throws: Reader.Failure.self) { try StateCommit(intent: hostile.intent(nil)) }
            let elsewhere = StateCommit(effects: [], snapshot: file)
            #expect(throws: Reader.Failure.self) { try StateCommit(intent: elsewhere.intent(nil)) }
        }
        // An intent from before customers (format 1) names the top-level snapshot.
        let old = Array(#"{"commit": {"format": 1, "effects": [], "snapshot": false}}"#.utf8)
        #expect(
            try StateCommit(intent: old) == StateCommit(effects: [.remove(file: StateLocation.fileName)], snapshot: nil)
        )
        let kept = Array(#"{"commit": {"format": 1, "effects": [], "snapshot": true}}"#.utf8)
        #expect(try StateCommit(intent: kept) == StateCommit(effects: [], snapshot: StateLocation.fileName))
    }

    /// Every file of the state folder but the lock and the indexes, by path relative to it.
    private func files(_ directory: String) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for case let name as String in FileManager().enumerator(atPath: directory)?.allObjects ?? [] {
            let path = directory + "/" + name
            guard !FileSystem.isDirectory(path), !name.hasSuffix(".lock"), !name.hasSuffix(".idx") else { continue }
            found[name] = bytes(path)
        }
        return found
    }

    /// Puts the folder back to `files`, removing any other (the indexes are rebuilt).
    private func restore(_ files: [String: [UInt8]], in directory: String) throws {
        for name in try self.files(directory).keys where files[name] == nil {
            try FileManager().removeItem(atPath: directory + "/" + name)
        }
        for (name, content) in files { try write(content, to: directory + "/" + name) }
    }

    /// One intent for the whole store: the change of one customer (bob) that a kill
    /// interrupted — his snapshot and the app's `store.json` not yet in place — is finished,
    /// or undone, by the next command of another customer (`default`) before it reads anything,
    /// and both customers' records, the outbox and `store.json` agree with one whole run.
    @Test(arguments: [true, false])
    func anotherCustomersCommandFinishesOrUndoesTheIntentFirst(whole: Bool) throws {
        let directory = Support.temporaryDirectory() + "/state"
        let owner = session(directory)
        let bob = owner.forAccount("bob")
        _ = try owner.buy(try catalog.purchasableProduct("fx.coins"), in: catalog)
        _ = try bob.buy(try catalog.purchasableProduct("fx.coins"), in: catalog)
        let before = try files(directory)
        let seenBefore = [try seen(owner), try seen(bob)]
        _ = try bob.buy(try catalog.purchasableProduct("fx.coins"), in: catalog)
        let after = try files(directory)
        let seenAfter = [try seen(owner), try seen(bob)]
        #expect(seenAfter != seenBefore)
        let bobSnapshot = "accounts/bob/" + StateLocation.fileName
        let bobJournal = "accounts/bob/" + StateLocation.journalFileName
        let bobIntent = try intent(of: bobSnapshot, from: before, to: after)
        #expect(String(decoding: bobIntent, as: UTF8.self).contains("\"store\""))

        // Killed just before the snapshot's rename: the intent (bob's new snapshot, with the
        // app's new store.json in it), bob's journal and the outbox appended; store.json old.
        try restore(before, in: directory)
        try write(bobIntent, to: owner.store.commitPath)
        var journal = try #require(after[bobJournal])
        if !whole { journal.removeLast(3) }  // killed mid-append instead
        try write(journal, to: directory + "/" + bobJournal)
        try write(after[StateLocation.notificationsFileName], to: directory + "/" + StateLocation.notificationsFileName)

        let recovered = try seen(owner)  // `default` reads first
        #expect(!FileSystem.entryExists(owner.store.commitPath))
        #expect([recovered, try seen(bob)] == (whole ? seenAfter : seenBefore))
        let left = try files(directory)
        for name in [StateLocation.appStateFileName, bobSnapshot, bobJournal, StateLocation.notificationsFileName] {
            let expected = whole && name == bobSnapshot ? bobIntent : (whole ? after : before)[name]
            #expect(left[name] == expected, "\(name)")
        }
    }
}
