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
    /// case from the store's, and acts for nobody (`accountNameTaken`). Asked only where the
    /// name may have reached a folder of another spelling (`mayReachAnotherSpelling`): reading
    /// the registry of a thousand customers was a fifth of a `status`.
    private func checkSpelling(of state: PurchaseState) throws(StateError) {
        let number = state.account.customerNumber
        guard location.account != StateLocation.defaultAccount, number != 0,
            Self.mayReachAnotherSpelling(location.accountDirectory),
            let held = try CustomerRegistry.read(location.customersPath).name(of: number), held != location.account,
            held.lowercased() == location.account.lowercased()
        else { return }
        throw .accountNameTaken(name: location.account, existing: held)
    }

    /// Whether the customer's folder at `path` may be another customer's, named in another
    /// case: when it is not a folder itself (a link), or when the name with its letters' case
    /// swapped reaches anything — as it does on a file system that folds case, whatever inode
    /// numbers that file system gives (the registry never holds two names that differ only in
    /// case, so on one that tells case apart it reaches nothing). That is an `lstat` and a
    /// `stat` on Linux, most of the time.
    static func mayReachAnotherSpelling(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return true }
        let name = FileSystem.name(of: path)
        let swapped = String(name.flatMap { $0.isUppercase ? $0.lowercased() : $0.uppercased() })
        guard swapped != name else { return false }
        var other = stat()
        let otherPath = FileSystem.folder(of: path) + "/" + swapped
        return stat(otherPath, &other) == 0
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
        if let app = try appStateView() { return app.settings }
        return AppState(of: try forAccount(StateLocation.defaultAccount).readSnapshot()).settings
    }

    /// `store.json` from the pinned view when there is one: a request reads it once, for its
    /// settings, its clock and under its snapshot, not once for each.
    /// - Parameter signature: the `stat` of `store.json` a caller has just taken
    ///   (`SettledStateVersion`), so that it is not taken again; nil to take it here.
    func appStateView(seen signature: SettledFileSignature? = nil) throws(StateError) -> AppState? {
        guard let pin else { return try readAppState(seen: signature) }
        return try pin.appState { () throws(StateError) in try readAppState(seen: signature) }
    }

    /// `store.json`, nil if there is none; with one `stat` once the file has settled, none
    /// when the caller has taken it (`seen`).
    private func readAppState(seen signature: SettledFileSignature?) throws(StateError) -> AppState? {
        let path = location.appStatePath
        if let known = cache.settledAppState(signature ?? SettledFileSignature.of(path)) { return known }
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
        if let app = try appStateView() {
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

    // MARK: Writing

    func prepareDirectory() throws(StateError) {
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
        // Lines appended move a mark, so the file that holds it changed without reading it again.
        let snapshot = written.customerPart
        let snapshotChanged =
            !journalLines.isEmpty || !FileSystem.exists(location.statePath)
            || (try? readSnapshot().customerPart) != snapshot
        let store = AppState(of: written).json
        let storeChanged =
            !outboxLines.isEmpty
            || (try? POSIXFile.readIfPresent(location.appStatePath)) != Data(store.bytes() + [0x0A])
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
        try StateError.decode(
            data, path: path, versionKey: "schemaVersion", newest: PurchaseState.currentSchemaVersion, oldest: 1
        ) { reader throws(Reader.Failure) in try PurchaseState(reader) }
    }
}
