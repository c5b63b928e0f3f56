import Foundation
import IAPSimJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Every change commits in one step, whatever files it touches (`StateCommit`): the intent
// with the customer's new snapshot and the app's new `store.json` first, then the appends and
// removals, then `store.json` and the snapshot put in place. The first thing done under the
// lock is to finish or undo an intent a crash left, whichever customer's change it was.
extension StateStore {
    /// The intent file a change writes before it touches anything else: one for the whole
    /// store, beside the top-level snapshot, whichever customer this store acts for.
    var commitPath: String {
        StateCommit.path(of: POSIXFile.resolvedSymlink(location.directory + "/" + StateLocation.fileName))
    }

    /// Runs `body` under the state's lock, after finishing or undoing any change a crash
    /// interrupted: every locked step goes through here, the one way the lock is taken.
    /// - Parameter recovering: false for the one step that must not depend on reading the
    ///   intent, the erase that removes it with everything else.
    func holdingLock<Result>(recovering: Bool = true, _ body: () throws -> Result) throws -> Result {
        // What a pinned reader saw may change now: its next look reads again.
        defer { pin?.forget() }
        return try FileLock.holding(path: location.lockPath, timeout: location.lockTimeout) {
            if recovering {
                try recoverCommit()
                try replayLogIfRestarted()
                removeLeftTemporaries()
            }
            return try body()
        }
    }

    /// For a reader without the lock: when an intent is there (a change in flight, or one a
    /// crash interrupted), or the commit log holds records from before a restart, takes the
    /// lock, which waits for the one in flight and recovers the other. Where the lock cannot be
    /// taken (a read-only folder) the files are read as they are.
    func settleInterruptedCommit() throws(StateError) {
        guard FileSystem.entryExists(commitPath) || logMayNeedReplay() else { return }
        do {
            try holdingLock {}
        } catch StateError.cannotCreate {
            // A read-only folder: nothing can be finished here.
        } catch let error as StateError {
            throw error
        } catch {
            throw .io(path: location.lockPath, reason: "\(error)")
        }
    }

    /// Commits a change: `snapshot` replaces the customer's snapshot (nil leaves it as it is),
    /// `store` replaces the app's `store.json` (nil leaves it), each of `appends` goes at the
    /// end of its file (which is first cut back to `from`, past a torn line), and each of
    /// `removals` is removed. A change without removals is one record of the commit log
    /// (`CommitRecord`), one fsync; one with removals (a reset, an erase) checkpoints the log
    /// and goes through the intent. What is written is checked to read back first. Under the
    /// lock.
    /// - Throws: `StateError.unwritable` when the snapshot or `store.json` would not read back;
    ///   `.io` or `.cannotCreate`; an append that fails is taken back, and the state is as it was.
    func commit(
        snapshot: JSONValue?, store: JSONValue? = nil, appends: [(file: String, from: UInt64, bytes: [UInt8])],
        removals: [String]
    ) throws(StateError) {
        let appends = appends.filter { !$0.bytes.isEmpty }
        let storeBytes = store.map { $0.bytes() + [0x0A] }
        if let storeBytes {
            do {
                _ = try AppState.decode(Data(storeBytes), path: location.appStatePath)
            } catch {
                throw .unwritable(path: location.appStatePath, detail: Self.detail(of: error))
            }
        }
        if removals.isEmpty {
            guard snapshot != nil || storeBytes != nil || !appends.isEmpty else { return }
            let snapshotBytes = snapshot.map { $0.bytes() + [0x0A] }
            if let snapshotBytes {
                do {
                    _ = try Self.decode(Data(snapshotBytes), path: location.statePath)
                } catch {
                    throw .unwritable(path: location.statePath, detail: Self.detail(of: error))
                }
            }
            // (Temp files a kill left beside the files it writes went when the lock was taken.)
            try commit(
                CommitRecord(
                    appends: appends.map { CommitRecord.Append(file: $0.file, from: $0.from, bytes: $0.bytes) },
                    snapshot: snapshotBytes.map {
                        CommitRecord.Snapshot(file: name(of: location.statePath), bytes: $0)
                    },
                    store: storeBytes))
            return
        }
        // The files the log's records wrote are synced before any is removed.
        try checkpointLog()
        var effects: [StateCommit.Effect] = []
        for append in appends {
            let checksum = append.bytes.withUnsafeBufferPointer { Self.checksum($0) }
            effects.append(
                .append(
                    file: append.file, from: append.from, to: append.from + UInt64(append.bytes.count),
                    checksum: checksum))
        }
        effects += removals.map { .remove(file: $0) }
        let intent = StateCommit(
            effects: effects, snapshot: snapshot == nil ? nil : name(of: location.statePath), store: store)
        let bytes = intent.intent(snapshot)
        if snapshot != nil {
            do {
                _ = try Self.decode(Data(bytes), path: location.statePath)
            } catch {
                throw .unwritable(path: location.statePath, detail: Self.detail(of: error))
            }
        }
        // Temp files of writes a crash or a kill interrupted: only a writer holding the lock
        // makes one, and this one holds it, so none is in use.
        _ = try? POSIXFile.removeTemporaries(of: location.statePath)
        let bytesOfIntent = bytes
        let intentPath = commitPath
        _ = try? POSIXFile.removeTemporaries(of: intentPath)
        do {
            try POSIXFile.writeAtomically(Data(bytesOfIntent), to: intentPath)
        } catch {
            throw error.storeError
        }
        var done = 0
        do throws(POSIXFile.Failure) {
            for append in appends {
                try POSIXFile.append(Data(append.bytes), to: path(of: append.file), truncatingTo: append.from)
                done += 1
            }
        } catch {
            // The change is reported as failed: take back what was appended, or the next read
            // would show a purchase the buyer was told did not happen.
            for append in appends.prefix(done + 1) { POSIXFile.truncate(path(of: append.file), to: append.from) }
            unlink(intentPath)
            throw error.storeError
        }
        let previousStore = storeBytes == nil ? nil : storeBeforeChange()
        var storeWritten = false
        do throws(POSIXFile.Failure) {
            try finish(intent, at: intentPath, bytes: bytesOfIntent, storeWritten: &storeWritten)
        } catch {
            // Removals are not taken back: the intent stays, and the next command finishes it.
            // Nor is a change whose `store.json` was written and cannot be put back: the
            // intent stays whole, and the next command rolls it forward.
            var undone = removals.isEmpty
            if undone, storeWritten { undone = putBack(store: previousStore) }
            if undone {
                for append in appends { POSIXFile.truncate(path(of: append.file), to: append.from) }
                unlink(intentPath)
            }
            throw error.storeError
        }
    }

    /// What `store.json` holds before a change replaces it, to put back if the change fails:
    /// `.some(nil)` when there is no file, nil when it cannot be read.
    func storeBeforeChange() -> Data?? {
        do {
            return .some(try POSIXFile.readIfPresent(location.appStatePath))
        } catch {
            return nil
        }
    }

    /// Puts `store.json` back as `storeBeforeChange()` found it; false when it cannot be.
    func putBack(store previous: Data??) -> Bool {
        switch previous {
        case .some(.some(let data)): (try? POSIXFile.writeAtomically(data, to: location.appStatePath)) != nil
        case .some(.none): (try? POSIXFile.remove(location.appStatePath)) != nil
        case .none: false
        }
    }

    /// Finishes or undoes the change a crash interrupted, if any — whichever customer's it was:
    /// rolls it forward when every append it names is in its file byte for byte, else cuts
    /// each file back to where it was and removes the intent; so too when its snapshot or its
    /// `store.json` does not read. An intent that does not read at all (torn, foreign) is
    /// removed: a writer touches nothing else before its intent is whole. One that reads but is
    /// not one iapsim writes (`StateCommit.validate`: a target no change writes, an offset past
    /// the marks) is acted on in no way: it is moved aside and said. Under the lock.
    /// - Returns: true when an intent was rolled forward, false when undone, nil when none.
    /// - Throws: `StateError.rejectedIntent` for an intent moved aside;
    ///   `StateError.newerSchema` for a newer iapsim's intent, left as it is; `.io` or
    ///   `.cannotCreate` when a file cannot be cut or renamed: the intent stays for the next
    ///   command.
    @discardableResult
    func recoverCommit() throws(StateError) -> Bool? {
        let intentPath = commitPath
        let bytes: Data?
        do {
            bytes = try POSIXFile.readIfPresent(intentPath)
        } catch {
            throw error.storeError
        }
        guard let bytes else { return nil }
        if let marker = CommitMarker(intent: [UInt8](bytes)) { return try recover(marker, at: intentPath) }
        let intent: StateCommit?
        var readable = true  // its snapshot and store.json read: it can be rolled forward
        do throws(Reader.Failure) {
            intent = try StateCommit(intent: [UInt8](bytes))
        } catch {
            intent = nil
        }
        var marks = StateCommit.IntentMarks()
        do {
            if let intent, intent.snapshot != nil {
                let state = try Self.decode(bytes, path: intentPath)
                marks = .init(journal: state.account.journalLength, outbox: state.outbox.journalLength)
            }
            if let store = intent?.store {
                marks.outbox = try AppState.decode(Data(store.bytes()), path: intentPath).notificationsLength
            }
        } catch .newerSchema(let path, let version) {
            // A newer iapsim's change: it is left for that iapsim to finish.
            throw .newerSchema(path: path, version: version)
        } catch {
            readable = false
            marks = .init()
        }
        if let intent {
            // Only an intent iapsim could have written is acted on (`StateCommit.validate`).
            do throws(StateCommit.Rejection) {
                try intent.validate(marks: marks, committed: committedMark(of:))
            } catch {
                try setAside(intentPath, reason: error.reason)
            }
        }
        guard let intent else {
            do throws(POSIXFile.Failure) {
                try POSIXFile.remove(intentPath)
            } catch {
                throw error.storeError
            }
            return false
        }
        var whole = false
        do throws(POSIXFile.Failure) {
            if readable { whole = try isWhole(intent) }
        } catch {
            throw error.storeError
        }
        if !whole {
            // Undone: never into committed bytes (an applied intent whose appends no longer
            // match is kept aside instead).
            for case .append(let file, let from, _, _) in intent.effects {
                if let done = committedMark(of: file), from < done {
                    try setAside(
                        intentPath, reason: "its append to \(file) is applied and no longer matches its checksum")
                }
            }
        }
        do throws(POSIXFile.Failure) {
            if whole {
                for case .append(let file, _, _, _) in intent.effects { POSIXFile.sync(path(of: file)) }
                var storeWritten = false
                try finish(intent, at: intentPath, bytes: [UInt8](bytes), storeWritten: &storeWritten)
                return true
            }
            for case .append(let file, let from, _, _) in intent.effects {
                POSIXFile.truncate(path(of: file), to: from)
                POSIXFile.sync(path(of: file))
            }
            try POSIXFile.remove(intentPath)
            return false
        } catch {
            throw error.storeError
        }
    }

    /// The committed length of a journal an intent appends to: its customer's snapshot's mark
    /// (0 without a snapshot), `store.json`'s outbox mark (in a folder before customers,
    /// `default`'s snapshot's); nil when the file that says cannot be read.
    func committedMark(of file: String) -> UInt64? {
        /// The file's bytes (nil data: no such file); nil when it cannot be read.
        func read(_ relative: String) -> (found: Bool, data: Data?)? {
            do {
                let data = try POSIXFile.readIfPresent(path(of: relative))
                return (data != nil, data)
            } catch {
                return nil
            }
        }
        if file == StateLocation.notificationsFileName {
            guard let store = read(StateLocation.appStateFileName) else { return nil }
            if let data = store.data {
                return (try? AppState.decode(data, path: location.appStatePath))?.notificationsLength
            }
            guard let root = read(StateLocation.fileName) else { return nil }
            guard let data = root.data else { return 0 }
            return (try? Self.decode(data, path: location.statePath))?.outbox.journalLength
        }
        guard let folder = StateCommit.customerFolder(of: file), let snapshot = read(folder + StateLocation.fileName)
        else { return nil }
        guard let data = snapshot.data else { return 0 }
        return (try? Self.decode(data, path: path(of: folder + StateLocation.fileName)))?.account.journalLength
    }

    /// Moves an intent that is not to be acted on aside, untouched, and says so.
    /// - Throws: `StateError.rejectedIntent` once moved; `.io` when it cannot be.
    func setAside(_ intentPath: String, reason: String) throws(StateError) -> Never {
        let kept = StateCommit.rejectedPath(of: intentPath)
        guard rename(intentPath, kept) == 0 else {
            throw .io(
                path: intentPath,
                reason: "cannot move a rejected commit intent aside: \(String(cString: strerror(errno)))")
        }
        POSIXFile.syncDirectory(FileSystem.folder(of: intentPath))
        throw .rejectedIntent(path: intentPath, keptAt: kept, reason: reason)
    }

    /// Removes the temp files a kill left beside the files a locked writer replaces: the app's
    /// (the top-level snapshot and index, the intent, `store.json`, `customers.json`, the armed
    /// server errors, the clock file, and the price texts, a cache whose writer may lose its
    /// temp file here and then skips the write) and this customer's, with one listing of each
    /// folder.
    /// Only a writer holding the lock makes one, and this one holds it, so none is in use. A
    /// file that cannot be removed is left for the next time.
    func removeLeftTemporaries() {
        let root = location.forAccount(StateLocation.defaultAccount)
        var paths = [
            root.statePath, root.indexPath, commitPath, location.appStatePath, location.customersPath,
            location.serverFaultsPath, location.clockFilePath, location.directory + "/" + PriceTexts.fileName,
        ]
        if location.account != StateLocation.defaultAccount { paths += [location.statePath, location.indexPath] }
        _ = try? POSIXFile.removeTemporaries(ofAll: paths)
    }

    /// Whether every append `intent` names is in its file, byte for byte.
    private func isWhole(_ intent: StateCommit) throws(POSIXFile.Failure) -> Bool {
        for case .append(let file, let from, let to, let checksum) in intent.effects {
            let path = path(of: file)
            guard let size = FileSystem.size(path), size >= to, to >= from else { return false }
            guard let bytes = try POSIXFile.readIfPresent(path, from: from), bytes.count >= Int(to - from) else {
                return false
            }
            let found = [UInt8](bytes.prefix(Int(to - from))).withUnsafeBufferPointer { Self.checksum($0) }
            if found != checksum { return false }
        }
        return true
    }

    /// The last steps of a commit whose appends are done: the removals (a symlink followed,
    /// the link left), then `store.json` written (temp file, fsync, rename), then the intent
    /// renamed over the snapshot it names — the moment the change happens — or removed when it
    /// names none, then the folders these touched synced, once each. Every step can be done
    /// again, so a crash in the middle leaves an intent the next command finishes.
    /// - Parameters:
    ///   - bytes: the intent file's bytes, copied to the snapshot when a rename cannot reach it
    ///     (the snapshot is a symlink to another file system).
    ///   - storeWritten: set once `store.json` is replaced.
    private func finish(_ intent: StateCommit, at intentPath: String, bytes: [UInt8], storeWritten: inout Bool)
        throws(POSIXFile.Failure)
    {
        for case .remove(let file) in intent.effects {
            let victim = POSIXFile.resolvedSymlink(path(of: file))
            if FileSystem.entryExists(victim) { try POSIXFile.remove(victim) }
        }
        let intentFolder = FileSystem.folder(of: intentPath)
        var folders = [intentFolder]
        if let store = intent.store {
            let folder = try POSIXFile.writeSyncedLeavingFolder(
                Data(store.bytes() + [0x0A]), to: location.appStatePath)
            storeWritten = true
            if !folders.contains(folder) { folders.append(folder) }
        }
        if let snapshot = intent.snapshot {
            let target = POSIXFile.resolvedSymlink(path(of: snapshot))
            if rename(intentPath, target) != 0 {
                guard errno == EXDEV else { throw POSIXFile.Failure(path: target, code: errno) }
                try POSIXFile.writeAtomically(Data(bytes), to: target)
                // The change has happened: an intent left here is only rolled forward again.
                unlink(intentPath)
            }
            let folder = FileSystem.folder(of: target)
            if !folders.contains(folder) { folders.append(folder) }
        } else {
            try POSIXFile.remove(intentPath)
        }
        for folder in folders { POSIXFile.syncDirectory(folder) }
    }

    /// The path of a file of the state folder named relative to it.
    func path(of file: String) -> String { location.directory + "/" + file }

    /// `path` relative to the state folder.
    func name(of path: String) -> String {
        let prefix = location.directory + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
