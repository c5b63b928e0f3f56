import Foundation
import IAPSimJSON

/// The one place state is read and written.
///
/// Two files: `purchases.json`, a small snapshot (the app's record, the session, and the
/// latest transaction of each product), and `transactions.jsonl`, an append-only journal with
/// one JSON transaction per line — every transaction, and each later version of one (a
/// refund, an upgrade). A purchase appends a line and rewrites the snapshot, so it costs the
/// same with 10 or 100,000 transactions behind it.
///
/// Reads take no lock: the snapshot is replaced atomically, so a reader sees a whole old or a
/// whole new one. Every change runs under an exclusive lock on a separate lock file: it reads
/// the state afresh, after finishing or undoing any change a crash interrupted, and commits
/// in one step through a roll-forward intent (`StateCommit`, `StateStore+Commit`): the new
/// snapshot written atomically beside the old one, then the journal lines appended and
/// fsynced, then the intent renamed over the snapshot (mode 0600 in a 0700 folder). A crash
/// leaves the change whole or not at all; a torn last line is ignored and cut off before the
/// next append. A file that cannot be parsed or has a newer schema stops the command before
/// anything is written.
///
/// A third file, `transactions.idx`, indexes the journal so look-ups read a line or two
/// instead of all of them (`TransactionIndex`, and `StateStore+Index` for the look-ups). It is
/// brought up to date in the same locked step, after the snapshot, without fsync, and rebuilt
/// from the journal whenever it does not check.
public struct StateStore: Sendable {
    public let location: StateLocation
    /// What this process read last, shared by the copies of this store.
    let cache: StateCache
    /// One request's view of the state, when this copy is `pinned()`.
    let pin: StatePin?

    public init(location: StateLocation) {
        self.init(location: location, cache: StateCache())
    }

    init(location: StateLocation, cache: StateCache, pin: StatePin? = nil) {
        self.location = location
        self.cache = cache
        self.pin = pin
    }

    /// Whether any state has been written yet.
    public var exists: Bool {
        FileSystem.exists(location.statePath) || FileSystem.exists(location.journalPath)
    }

    /// The current state: the snapshot, with any journal lines past it replayed; an empty
    /// state if there is no file yet.
    /// - Throws: `StateError.corrupt`, `.newerSchema` or `.io`.
    public func read() throws(StateError) -> PurchaseState {
        try read(from: try readSnapshot())
    }

    /// `read()`, from `snapshot`, the snapshot just read.
    private func read(from snapshot: PurchaseState) throws(StateError) -> PurchaseState {
        var state = snapshot
        let marks = (state.account.journalLength, state.outbox.journalLength)
        try replayJournal(into: &state)
        try replayNotifications(into: &state)
        if (state.account.journalLength, state.outbox.journalLength) != marks, FileSystem.entryExists(commitPath) {
            // Lines of a change being written, or one a crash interrupted: wait for it (or
            // finish it) under the lock, and read again.
            try settleInterruptedCommit()
            state = try readSnapshot()
            try replayJournal(into: &state)
            try replayNotifications(into: &state)
        }
        return state
    }

    /// The snapshot alone, without the journal lines past it: enough for what only the
    /// snapshot holds (the session settings, the clock), read with one `stat` once settled.
    func readSnapshot() throws(StateError) -> PurchaseState {
        try settleInterruptedCommit()
        let path = location.statePath
        var state = PurchaseState()
        if let known = cache.settledSnapshot(SettledFileSignature.of(path)) {
            state = known
        } else {
            let read: (data: Data, signature: SettledFileSignature)?
            do {
                read = try POSIXFile.readSignedIfPresent(path)
            } catch {
                throw .unreadable(path: path, reason: error.reason)
            }
            if let read {
                if let known = cache.state(decodedFrom: read.data) {
                    state = known
                } else {
                    state = try Self.decode(read.data, path: path)
                    try checkSpelling(of: state)
                }
                cache.remember(state, decodedFrom: read.data, signature: read.signature)
            }
        }
        try layAppState(over: &state)
        return state
    }

    /// On a case-insensitive file system `bob` opens `Bob`'s folder: a snapshot read under a
    /// name must be the one `customers.json` gives its number, else the name only differs in
    /// case from the store's, and acts for nobody (`accountNameTaken`).
    private func checkSpelling(of state: PurchaseState) throws(StateError) {
        let number = state.account.customerNumber
        guard location.account != StateLocation.defaultAccount, number != 0,
            let held = try CustomerRegistry.read(location.customersPath).name(of: number), held != location.account,
            held.lowercased() == location.account.lowercased()
        else { return }
        throw .accountNameTaken(name: location.account, existing: held)
    }

    /// The app's settings alone (`SettingKey.isAppWide`: environment, bundle identifier, app
    /// Apple ID, shared secret, …), from `store.json`; in a folder written before customers
    /// (no `store.json`), from `default`'s snapshot, which held them. No customer's snapshot is
    /// read otherwise, so what needs only these (a server's token and receipt checks) works
    /// for every customer while one customer's snapshot is unreadable.
    func appSettings() throws(StateError) -> SettingOverrides {
        if let pin { return try pin.appSettings(readAppSettings) }
        return try readAppSettings()
    }

    private func readAppSettings() throws(StateError) -> SettingOverrides {
        if let app = try readAppState() { return app.settings }
        return AppState(of: try forAccount(StateLocation.defaultAccount).readSnapshot()).settings
    }

    /// `store.json`, nil if there is none; with one `stat` once the file has settled.
    private func readAppState() throws(StateError) -> AppState? {
        let path = location.appStatePath
        if let known = cache.settledAppState(SettledFileSignature.of(path)) { return known }
        let read: (data: Data, signature: SettledFileSignature)?
        do {
            read = try POSIXFile.readSignedIfPresent(path)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        guard let read else { return nil }
        let app = try AppState.decode(read.data, path: path)
        cache.remember(app, signature: read.signature)
        return app
    }

    /// Lays the app's state (`AppState`: the clock, the app's settings, the outbox's marks)
    /// over a customer's snapshot: from `store.json`, or, in a folder written before customers
    /// existed, from `default`'s snapshot, which held them.
    private func layAppState(over state: inout PurchaseState) throws(StateError) {
        if let app = try readAppState() {
            app.apply(to: &state)
        } else if location.account != StateLocation.defaultAccount {
            let root = location.forAccount(StateLocation.defaultAccount).statePath
            let data: Data?
            do {
                data = try POSIXFile.readIfPresent(root)
            } catch {
                throw .unreadable(path: root, reason: error.reason)
            }
            AppState(
                of: try data.map { data throws(StateError) in try Self.decode(data, path: root) } ?? PurchaseState()
            )
            .apply(to: &state)
        }
    }

    /// Applies `change` to the current state under the lock and saves the result, unless
    /// `change` left the state unchanged or threw.
    /// - Returns: what `change` returned.
    /// - Throws: what `change` threw, or a `StateError`.
    public func update<Result>(_ change: (inout PurchaseState) throws -> Result) throws -> Result {
        try prepareDirectory()
        try addAccountIfNeeded()
        return try holdingLock {
            let before = try read()
            let index = try ensureIndex()
            var state = before
            let result: Result
            do {
                result = try change(&state)
            } catch let overflow as PurchaseState.Overflow {
                throw StateError.corrupt(path: location.statePath, detail: overflow.detail)
            }
            if state != before {
                try write(&state, index: index)
                if state.simulation.clock != before.simulation.clock { writeClockFile(state.simulation.clock) }
            }
            return result
        }
    }

    /// `change` applied to the current state in memory and not saved, for commands that only
    /// look: it needs no lock, so it works on a read-only file system too.
    public func view<Result>(_ change: (inout PurchaseState) throws -> Result) throws -> Result {
        var state: PurchaseState
        if let pin {
            state = try pin.state { () throws(StateError) in try read(from: try snapshotView()) }
        } else {
            state = try read()
        }
        do {
            return try change(&state)
        } catch let overflow as PurchaseState.Overflow {
            throw StateError.corrupt(path: location.statePath, detail: overflow.detail)
        }
    }

    /// Removes the state, the journal and any temporary file an interrupted write left, under
    /// the lock, whether or not they can be parsed: the way out of a corrupt state file. The
    /// files go in one commit (`StateCommit`, with no snapshot), so a crash leaves them all or
    /// none. A
    /// state file written by a newer iapsim (a higher `schemaVersion`) is removed only with
    /// `force`, so an older iapsim never throws away a newer one's state unasked; nor is one it
    /// cannot read at all (permissions), whose schema it cannot tell. The folder and the lock
    /// file stay.
    /// - Parameter force: also remove a newer-schema or unreadable state file.
    /// - Returns: the paths removed — the files, then temporary ones; empty when there was
    ///   nothing.
    /// - Throws: `StateError.newerSchema` or `.io` (without `force`; nothing is removed),
    ///   `.busy`, `.io` or `.cannotCreate` when a file cannot be removed.
    public func erase(force: Bool = false) throws -> [String] {
        guard FileSystem.exists(location.directory) else { return [] }
        return try FileLock.holding(path: location.lockPath, timeout: location.lockTimeout) {
            let path = location.statePath
            if !force {
                let data: Data?
                do throws(POSIXFile.Failure) {
                    data = try POSIXFile.readIfPresent(path)
                } catch {
                    throw StateError.io(path: path, reason: error.reason + "; its schema cannot be told")
                }
                if let data {
                    do throws(StateError) {
                        _ = try Self.decode(data, path: path)
                    } catch .newerSchema(let path, let version) {
                        throw StateError.newerSchema(path: path, version: version)
                    } catch {
                        // Corrupt: this is what the erase is for.
                    }
                }
            }
            // Every customer's files and the app's, in one commit: the other customers' (each
            // folder's snapshot, journal and index), then `default`'s at the top with the app's.
            let root = location.forAccount(StateLocation.defaultAccount)
            let others = accountFolders()
            var files: [String] = []
            for customer in others { files += [customer.statePath, customer.journalPath, customer.indexPath] }
            files += [
                root.statePath, root.journalPath, root.indexPath, location.notificationsPath,
                location.appStatePath, location.customersPath,
            ]
            let removed = (files + [commitPath]).filter(FileSystem.entryExists)
            var temporaries: [String] = []
            do {
                for customer in [root] + others {
                    temporaries += try POSIXFile.removeTemporaries(of: customer.statePath)
                    temporaries += try POSIXFile.removeTemporaries(of: customer.indexPath)
                }
                temporaries += try POSIXFile.removeTemporaries(of: commitPath)
                temporaries += try POSIXFile.removeTemporaries(of: location.appStatePath)
                temporaries += try POSIXFile.removeTemporaries(of: location.customersPath)
                if !removed.isEmpty {
                    // One step, through an intent that removes everything, the histories first: a
                    // crash half-way never leaves a history without its snapshot (which the next
                    // read would replay) or a snapshot without its history. An intent a crash
                    // left goes too.
                    try? POSIXFile.remove(commitPath)
                    let history = files.filter { !$0.hasSuffix("/" + StateLocation.fileName) }
                    let snapshots = files.filter { $0.hasSuffix("/" + StateLocation.fileName) }
                    do throws(StateError) {
                        try commit(snapshot: nil, appends: [], removals: (history + snapshots).map(name(of:)))
                    } catch {
                        // No room even for the intent (a full disk): the files one by one, the
                        // history first.
                        for candidate in history + snapshots where FileSystem.entryExists(candidate) {
                            try POSIXFile.remove(candidate)
                        }
                    }
                }
            } catch let error as POSIXFile.Failure {
                throw error.storeError
            }
            let folders = removeAccountFolders(others)
            // No clock now: a program on it goes back to real time.
            if FileSystem.exists(location.clockFilePath) { writeClockFile(nil) }
            return removed + folders + temporaries
        }
    }

    /// Erases the account's history under the lock — the journal, its index and the
    /// notifications journal — and writes what `change` makes of the current state as the
    /// whole snapshot (it must include no journal: `journalLength` 0). The state must read: a
    /// corrupt one is `erase`'s to remove. One commit (`StateCommit`) removes the files and
    /// writes the snapshot, so a crash leaves the old state or the new one, never a snapshot
    /// naming a journal that is gone nor a history that comes back.
    /// - Returns: the paths removed.
    public func clearHistory(_ change: (PurchaseState) -> PurchaseState) throws -> [String] {
        try prepareDirectory()
        return try holdingLock {
            let before = try read()
            var state = change(before)
            // The outbox is the app's: it goes with the history only when no other customer
            // has notifications in it.
            let alone = try accountEntries().isEmpty
            if !alone { state.outbox.journalLength = before.outbox.journalLength }
            let files = [location.journalPath, location.indexPath] + (alone ? [location.notificationsPath] : [])
            var removed = files.filter(FileSystem.entryExists)
            try write(&state, index: nil, removing: files.map(name(of:)))
            do {
                removed += try POSIXFile.removeTemporaries(of: location.indexPath)
            } catch let error as POSIXFile.Failure {
                throw error.storeError
            }
            return removed
        }
    }

    // MARK: The journal

    /// Every notification and delivery attempt in the notifications journal, oldest first.
    public func notificationRecords() throws(StateError) -> [Outbox.Record] {
        var records: [Outbox.Record] = []
        try forEachNotificationRecord { records.append($0) }
        return records
    }

    /// Calls `body` with each record of the notifications journal, oldest first, holding one
    /// at a time.
    public func forEachNotificationRecord(_ body: (Outbox.Record) -> Void) throws(StateError) {
        try forEachNotificationRecord(from: 0) { record, _ in body(record) }
    }

    /// Calls `body` with each whole record of the notifications journal from byte `offset`,
    /// and the offset just past it.
    func forEachNotificationRecord(from offset: UInt64, _ body: (Outbox.Record, UInt64) -> Void)
        throws(StateError)
    {
        try settleInterruptedCommit()
        cache.countNotificationJournalRead()
        var lines = 0
        defer { cache.countNotificationLinesRead(lines) }
        try forEachLine(of: location.notificationsPath, from: offset, what: "a notification", parse: Outbox.Record.init)
        {
            record, end in
            lines += 1
            body(record, end)
        }
    }

    /// Counts notification lines past the snapshot's mark, written by a change whose snapshot
    /// a crash interrupted: they belong to the transactions replayed with them.
    private func replayNotifications(into state: inout PurchaseState) throws(StateError) {
        let size = FileSystem.size(location.notificationsPath) ?? 0
        let mark = state.outbox.journalLength
        if size < mark {
            throw .corrupt(
                path: location.notificationsPath,
                detail: "it is \(size) bytes but \(StateLocation.fileName) includes \(mark)")
        }
        guard size > mark else { return }
        var outbox = state.outbox
        try forEachLine(of: location.notificationsPath, from: mark, what: "a notification", parse: Outbox.Record.init) {
            record, end in
            if case .notification = record { outbox.count += 1 }
            outbox.journalLength = end
        }
        state.outbox = outbox
    }

    /// Replays journal lines past the snapshot's mark: a crash came between appending them
    /// and writing the snapshot. New transactions are delivered to the app's record.
    private func replayJournal(into state: inout PurchaseState) throws(StateError) {
        let size = FileSystem.size(location.journalPath) ?? 0
        let mark = state.account.journalLength
        if size < mark {
            throw .corrupt(
                path: location.journalPath,
                detail: "it is \(size) bytes but \(StateLocation.fileName) includes \(mark)")
        }
        guard size > mark else { return }
        var replayed = state
        var overflow: PurchaseState.Overflow?
        var bereft: [String] = []  // products a replayed deletion took the latest transaction of
        try forEachJournalLine(from: mark) { transaction, end in
            guard overflow == nil else { return }
            do throws(PurchaseState.Overflow) {
                if transaction.deletionDate != nil, replayed.account.current(id: transaction.id) != nil {
                    bereft.append(transaction.productID)
                }
                let isNew = transaction.id >= replayed.account.nextTransactionID
                try replayed.account.record(transaction, isNew: isNew)
                if isNew {
                    replayed.account.nextTransactionID = try PurchaseState.adding(
                        1, to: transaction.id, field: "the journal's transaction \(transaction.id): the next id")
                    if transaction.productType == .consumable {
                        try replayed.app.add(transaction.purchasedQuantity, of: transaction.productID)
                    } else if transaction.revocationDate == nil {
                        replayed.app.deliver(transaction.productID)
                    }
                }
            } catch {
                overflow = error
            }
            replayed.account.journalLength = end
        }
        if let overflow { throw .corrupt(path: location.journalPath, detail: overflow.detail) }
        // A deletion's product falls back on its newest transaction left, which the index
        // (rebuilt from the journal, deletions and all) finds; the app loses what it no longer
        // has, as `currentEntitlements` tells it at launch.
        for productID in bereft {
            let replacement: Transaction?
            do {
                replacement = try latestTransaction(productID: productID, excluding: [])
            } catch let error as StateError {
                throw error
            } catch {
                throw .corrupt(path: location.journalPath, detail: "\(error)")
            }
            if let replacement { replayed.account.reinstate(replacement) }
            if replacement.map({ $0.revocationDate == nil && !$0.isUpgraded }) != true {
                replayed.app.revoke(productID)
            }
        }
        replayed.account.unsaved = []
        state = replayed
    }

    /// Calls `body` with each complete journal line from byte `offset` on, and the offset just
    /// past it. A torn last line (no newline: a crash mid-append) is not a line.
    private func forEachJournalLine(
        from offset: UInt64, _ body: (Transaction, UInt64) -> Void
    ) throws(StateError) {
        try forEachLine(of: location.journalPath, from: offset, what: "a transaction", parse: Transaction.init, body)
    }

    /// Calls `body` with each complete line of the JSONL file at `path` from byte `offset`
    /// on, parsed by `parse`, and the offset just past it; a piece at a time.
    private func forEachLine<Item>(
        of path: String, from offset: UInt64, what: String, parse: (Reader) throws(Reader.Failure) -> Item,
        _ body: (Item, UInt64) -> Void
    ) throws(StateError) {
        let file: JournalFile?
        do {
            file = try JournalFile(path: path)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        do {
            try file?.forEachLine(from: offset) { (line, position) throws(StateError) in
                guard !line.isEmpty else { return }
                do {
                    let json = try JSONValue.parse(Array(line))
                    body(try parse(try Reader(json, at: "")), position)
                } catch let error as JSONValue.SyntaxError {
                    throw .corrupt(
                        path: path, detail: "the line ending at byte \(position) is not JSON: \(error.message)")
                } catch {
                    throw .corrupt(
                        path: path,
                        detail:
                            "the line ending at byte \(position) is not \(what): \((error as? Reader.Failure)?.message ?? "\(error)")"
                    )
                }
            }
        } catch {
            switch error {
            case .io(let failure): throw .unreadable(path: path, reason: failure.reason)
            case .missing: break
            case .body(let error): throw error
            }
        }
    }

    // MARK: Writing

    private func prepareDirectory() throws(StateError) {
        do {
            try POSIXFile.makeDirectory(location.directory)
            try POSIXFile.makeDirectory(location.accountDirectory)
        } catch {
            throw .cannotCreate(path: error.path, reason: error.reason)
        }
    }

    /// Commits the unsaved transactions and notifications with the snapshot that includes
    /// them in one step (`commit`: an intent with the new snapshot, the appends, the intent
    /// renamed over the snapshot), then brings the index up to date. Everything is spelled and
    /// checked before the first byte is written: what the reader would refuse is never written.
    /// - Parameters:
    ///   - index: the index as `ensureIndex` found it before the change.
    ///   - removing: files of the state folder the same step removes (`clearHistory`).
    /// - Throws: `StateError.unwritable` when a line or the snapshot would not read back; the
    ///   files stay as they were.
    func write(_ state: inout PurchaseState, index: IndexReader?, removing: [String] = []) throws(StateError) {
        let journalMark = state.account.journalLength
        let outboxMark = state.outbox.journalLength
        var written = state
        written.schemaVersion = PurchaseState.currentSchemaVersion  // an older file is upgraded as it is written
        var appended: [(transaction: Transaction, offset: UInt64)] = []
        var journalLines: [UInt8] = []
        for transaction in written.account.unsaved {
            let start = journalLines.count
            appended.append((transaction, journalMark + UInt64(start)))
            transaction.json.write(to: &journalLines, indent: nil)
            try checkJournalLine(journalLines[start...], of: transaction)
            journalLines.append(UInt8(ascii: "\n"))
        }
        do {
            written.account.journalLength = try PurchaseState.adding(
                UInt64(journalLines.count), to: journalMark, field: "account.journalLength")
        } catch {
            throw .corrupt(path: location.statePath, detail: error.detail)
        }
        written.account.unsaved = []
        var outboxLines: [UInt8] = []
        for record in written.outbox.unsaved {
            let start = outboxLines.count
            record.json.write(to: &outboxLines, indent: nil)
            try checkNotificationLine(Array(outboxLines[start...]))
            outboxLines.append(UInt8(ascii: "\n"))
        }
        written.outbox.journalLength = outboxMark + UInt64(outboxLines.count)
        written.outbox.unsaved = []
        // The customer's part and the app's (`store.json`: the clock, the app's settings, the
        // outbox's count and mark) go in one commit, each only when it changed: a change of the
        // app's alone (a clock move, the outbox's mark after deliveries) leaves the customer's
        // snapshot as it is, and then needs no intent.
        let snapshot = written.customerPart
        let snapshotChanged =
            !FileSystem.exists(location.statePath) || (try? readSnapshot().customerPart) != snapshot
        let store = AppState(of: written).json
        let storeChanged = (try? POSIXFile.readIfPresent(location.appStatePath)) != Data(store.bytes() + [0x0A])
        try commit(
            snapshot: snapshotChanged ? snapshot.json : nil, store: storeChanged ? store : nil,
            appends: [
                (name(of: location.journalPath), journalMark, journalLines),
                (name(of: location.notificationsPath), outboxMark, outboxLines),
            ], removals: removing)
        state = written
        if !appended.isEmpty { updateIndex(appended, index: index, coveredLength: state.account.journalLength) }
    }

    /// A journal line, before it is appended, reads back as the transaction it was spelled
    /// from, as the index and later reads read it (`JournalLine.readBack`).
    private func checkJournalLine(_ line: ArraySlice<UInt8>, of transaction: Transaction) throws(StateError) {
        guard let reason = line.withUnsafeBufferPointer({ JournalLine.readBack($0, as: transaction) }) else { return }
        throw .unwritable(path: location.journalPath, detail: "transaction \(transaction.id): \(reason)")
    }

    /// A notification line reads back, as `replayNotifications` reads it.
    private func checkNotificationLine(_ line: [UInt8]) throws(StateError) {
        do {
            _ = try Outbox.Record(try Reader(try JSONValue.parse(line), at: ""))
        } catch {
            throw .unwritable(
                path: location.notificationsPath, detail: (error as? Reader.Failure)?.message ?? "\(error)")
        }
    }

    /// What `decode` found wrong, without the path it names.
    static func detail(of error: StateError) -> String {
        switch error {
        case .corrupt(_, let detail): detail
        case .newerSchema(_, let version): "schema \(version)"
        default: error.localizedDescription
        }
    }

    static func decode(_ data: Data, path: String) throws(StateError) -> PurchaseState {
        let json: JSONValue
        do {
            json = try JSONValue.parse([UInt8](data))
        } catch {
            throw .corrupt(
                path: path,
                detail: data.isEmpty ? "the file is empty" : "not JSON: \(error.message) at byte \(error.offset)")
        }
        guard case .number(let text) = json["schemaVersion"] ?? .null, let version = Int(text) else {
            throw .corrupt(path: path, detail: "no schemaVersion")
        }
        if version > PurchaseState.currentSchemaVersion { throw .newerSchema(path: path, version: version) }
        if version < 1 { throw .corrupt(path: path, detail: "schemaVersion \(version) is not a version iapsim wrote") }
        do {
            return try PurchaseState(try Reader(json, at: ""))
        } catch {
            throw .corrupt(path: path, detail: error.message)
        }
    }
}
