import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The commit log every change without removals commits through (`CommitRecord`): one synced
/// record is the change, its files are written without fsync. Each test makes what a kill or a
/// restart leaves — the files of the state before a change, the log holding the change's record,
/// and its marker or a header of another boot — and lets the next command recover.
@Suite struct CommitLogTests {
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

    private func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The files a change writes (not the log, the lock, the index), by name.
    private let names = [
        StateLocation.fileName, StateLocation.journalFileName, StateLocation.notificationsFileName,
        StateLocation.appStateFileName,
    ]

    private func files(_ store: StateStore) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for name in names { found[name] = bytes(store.location.directory + "/" + name) }
        return found
    }

    private func put(_ files: [String: [UInt8]], in store: StateStore) throws {
        for (name, content) in files { try write(content, to: store.location.directory + "/" + name) }
    }

    /// The state as the next command reads it, and what the history and the outbox list.
    private func seen(_ session: StoreSession) throws -> [String] {
        let state = try session.store.read()
        return [
            "\(state.app)", "\(state.account.journalLength)", "\(state.outbox.journalLength)", "\(state.outbox.count)",
            "\(try session.store.transactions())", "\(try session.store.notificationRecords())",
        ]
    }

    /// The marker of the log's last record, which begins at byte `record`.
    private func lastMarker(_ record: Int, in log: [UInt8]) -> CommitMarker {
        let line = Array(log[record...])
        return CommitMarker(
            from: UInt64(record), to: UInt64(log.count),
            checksum: line.withUnsafeBufferPointer { StateStore.checksum($0) })
    }

    /// A folder with a consumable bought, then refunded: the files before the refund, the
    /// files and the state after it, and where the refund's record begins in the log.
    private func refunded() throws -> (
        session: StoreSession, before: [String: [UInt8]], after: [String: [UInt8]], seenAfter: [String],
        record: Int
    ) {
        let session = session(Support.temporaryDirectory() + "/state")
        _ = try session.buy(try catalog.purchasableProduct("fx.coins"), in: catalog)
        let before = files(session.store)
        let record = Int(FileSystem.size(session.store.commitLogPath) ?? 0)
        _ = try session.refund(1, reason: .other)
        return (session, before, files(session.store), try seen(session), record)
    }

    @Test func aChangeIsOneRecordOfTheLogAndItsFiles() throws {
        let (session, _, after, _, record) = try refunded()
        let store = session.store
        #expect(!FileSystem.entryExists(store.commitPath))
        let log = try #require(bytes(store.commitLogPath))
        #expect(CommitLog.boot(ofHeader: log) == SystemBoot.identifier())
        let line = try CommitRecord(line: log[record...].dropLast())
        #expect(line.snapshot?.file == StateLocation.fileName)
        #expect(line.snapshot?.bytes == after[StateLocation.fileName])
        #expect(line.store == after[StateLocation.appStateFileName])
        // What it appends is what the journals gained.
        for append in line.appends {
            let grown = try #require(after[append.file])
            #expect(Array(grown[Int(append.from)...]) == append.bytes, "\(append.file)")
        }
        #expect(Set(line.appends.map(\.file)) == [StateLocation.journalFileName, StateLocation.notificationsFileName])
    }

    /// Killed after the record was synced, before or while its files were written: the next
    /// read writes them, and the state is the whole change's, byte for byte.
    @Test func aMarkerWhoseRecordIsWholeIsRolledForward() throws {
        let (session, before, after, seenAfter, record) = try refunded()
        let store = session.store
        let log = try #require(bytes(store.commitLogPath))
        let marker = lastMarker(record, in: log)
        try put(before, in: store)
        try write(marker.bytes(), to: store.commitPath)
        #expect(try seen(session) == seenAfter)
        #expect(files(store) == after)
        #expect(!FileSystem.entryExists(store.commitPath))
    }

    /// Killed while the record was appended: the log is cut back, the state is as before, and
    /// the change made again happens once.
    @Test(arguments: [0, 1, 200])
    func aMarkerWhoseRecordIsTornIsRolledBack(kept: Int) throws {
        let (session, before, after, seenAfter, record) = try refunded()
        let store = session.store
        let log = try #require(bytes(store.commitLogPath))
        let marker = lastMarker(record, in: log)
        try put(before, in: store)
        try write(Array(log.prefix(record + kept)), to: store.commitLogPath)
        try write(marker.bytes(), to: store.commitPath)
        #expect(files(store) == before)
        _ = try store.read()
        #expect(files(store) == before)
        #expect(FileSystem.size(store.commitLogPath) == UInt64(record))
        #expect(!FileSystem.entryExists(store.commitPath))
        _ = try session.refund(1, reason: .other)
        #expect(try seen(session) == seenAfter)
        #expect(files(store)[StateLocation.journalFileName] == after[StateLocation.journalFileName])
    }

    /// After a restart the files written without fsync may be old: the log's header names
    /// another boot, and the first command writes every record again, then checkpoints.
    @Test(arguments: [true, false])
    func afterARestartEveryRecordIsWrittenAgain(byAReader: Bool) throws {
        let (session, before, after, seenAfter, _) = try refunded()
        let store = session.store
        var log = try #require(bytes(store.commitLogPath))
        log.replaceSubrange(0..<CommitLog.headerLength, with: CommitLog.header(boot: [UInt8](repeating: 7, count: 16)))
        try write(log, to: store.commitLogPath)
        try put(before, in: store)
        if byAReader {
            // A reader tells a log of an earlier boot by its time: changed before this boot. (A
            // new process: this one's store has seen the log of this boot, and stops looking.)
            let path = store.commitLogPath
            var times = [timespec(tv_sec: 1000, tv_nsec: 0), timespec(tv_sec: 1000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            #expect(!store.logMayNeedReplay())
            let reader = self.session(store.location.directory)
            #expect(reader.store.logMayNeedReplay())
            #expect(try seen(reader) == seenAfter)
            #expect(!reader.store.logMayNeedReplay())
        } else {
            _ = try store.update { _ in }
        }
        #expect(files(store) == after)
        #expect(try seen(session) == seenAfter)
        // Checkpointed: the files synced, the log empty under a header of this boot.
        let emptied = try #require(bytes(store.commitLogPath))
        #expect(emptied.count == CommitLog.headerLength)
        #expect(CommitLog.boot(ofHeader: emptied) == SystemBoot.identifier())
    }

    @Test func aLogPastItsSizeIsCheckpointed() throws {
        let session = session(Support.temporaryDirectory() + "/state")
        let store = session.store
        var sizes: [UInt64] = []
        for _ in 0..<400 {
            _ = try session.buy(try catalog.purchasableProduct("fx.coins"), in: catalog)
            sizes.append(FileSystem.size(store.commitLogPath) ?? 0)
            if sizes.count > 1, sizes[sizes.count - 1] < sizes[sizes.count - 2] { break }
        }
        // Emptied by the record that took it past its size.
        #expect(sizes.count > 2)
        #expect(sizes[sizes.count - 2] + (sizes[1] - sizes[0]) > CommitLog.checkpointSize)
        #expect(sizes.last == UInt64(CommitLog.headerLength))
        #expect(try store.read().app.consumables["fx.coins"] == sizes.count)
        #expect(try store.transactions().count == sizes.count)
    }

    @Test func aLogThatIsNotIapsimsIsSetAsideAndSaid() throws {
        let (session, _, _, seenAfter, _) = try refunded()
        let store = session.store
        let foreign = Array(String(repeating: "not a log\n", count: 10).utf8)
        try write(foreign, to: store.commitLogPath)
        #expect(throws: StateError.self) { try store.update { _ in } }
        #expect(bytes(store.commitLogPath + ".rejected") == foreign)
        #expect(!FileSystem.entryExists(store.commitLogPath))
        #expect(try seen(session) == seenAfter)
        _ = try session.buy(try catalog.purchasableProduct("fx.coins"), in: catalog)
        #expect(try store.read().app.consumables["fx.coins"] == 1)
    }

    @Test func aRecordReadsBackByteForByte() throws {
        let record = CommitRecord(
            appends: [
                .init(file: "accounts/bob/transactions.jsonl", from: 12, bytes: Array("{\"a\":\"é\\n\\\"\"}\n".utf8))
            ], snapshot: .init(file: "accounts/bob/purchases.json", bytes: Array("{\n  \"b\": 1\n}\n".utf8)),
            store: Array("{\"c\":\"\\u0001\"}\n".utf8))
        let line = record.line()
        #expect(line.last == 0x0A && !line.dropLast().contains(0x0A))
        #expect(try CommitRecord(line: line[...]) == record)
        for file in ["../x", "/etc/passwd"] {
            var hostile = record
            hostile.appends[0].file = file
            #expect(throws: Reader.Failure.self) { try CommitRecord(line: hostile.line()[...]) }
        }
        #expect(
            CommitMarker(intent: CommitMarker(from: 64, to: 90, checksum: 5).bytes())
                == .init(from: 64, to: 90, checksum: 5))
        #expect(CommitMarker(intent: CommitMarker(from: 3, to: 90, checksum: 5).bytes()) == nil)
    }
}
