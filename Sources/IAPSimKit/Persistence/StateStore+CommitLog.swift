import Foundation
import IAPSimJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A change committed through the commit log (`CommitRecord`): its marker (the intent's place,
// no fsync), its record appended to the log and synced — the commit — then its files written
// without fsync and the marker removed. A checkpoint syncs the files the log's records wrote
// and empties it; after a restart the first locked step writes every record again first.
extension StateStore {
    /// The commit log, beside the intent.
    var commitLogPath: String {
        FileSystem.folder(of: commitPath) + "/" + CommitLog.fileName
    }

    /// Commits `record` through the log. Under the lock, after recovery.
    /// - Throws: `.io` or `.cannotCreate`; a change that fails before its record is synced, or
    ///   whose files cannot be written and can be put back, is taken back whole.
    func commit(_ record: CommitRecord) throws(StateError) {
        let logPath = commitLogPath
        let fd = open(logPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw POSIXFile.Failure(path: logPath, code: errno).storeError }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw POSIXFile.Failure(path: logPath, code: errno).storeError }
        var end = UInt64(info.st_size)
        if end < UInt64(CommitLog.headerLength) {
            // New, or torn while it was begun (no record yet): the header, synced with its name.
            do throws(POSIXFile.Failure) {
                if ftruncate(fd, 0) != 0 { throw POSIXFile.Failure(path: logPath, code: errno) }
                try POSIXFile.writeAt(CommitLog.header(boot: SystemBoot.identifier()), to: fd, at: 0, path: logPath)
                try POSIXFile.syncData(fd, path: logPath)
            } catch {
                throw error.storeError
            }
            POSIXFile.syncDirectory(FileSystem.folder(of: logPath))
            end = UInt64(CommitLog.headerLength)
        } else if end == UInt64(CommitLog.headerLength) {
            // No record yet: the header is made to name this boot (after a restart it names the
            // last one, and records of this boot under it would be taken for a restart's), and
            // is synced with the record.
            do throws(POSIXFile.Failure) {
                try POSIXFile.writeAt(CommitLog.header(boot: SystemBoot.identifier()), to: fd, at: 0, path: logPath)
            } catch {
                throw error.storeError
            }
        }
        let line = record.line()
        let marker = CommitMarker(
            from: end, to: end + UInt64(line.count), checksum: line.withUnsafeBufferPointer { Self.checksum($0) })
        let markerPath = commitPath
        do throws(POSIXFile.Failure) {
            try POSIXFile.replaceUnsynced(markerPath, with: marker.bytes())
        } catch {
            throw error.storeError
        }
        do throws(POSIXFile.Failure) {
            try POSIXFile.writeAt(line, to: fd, at: end, path: logPath)
            try POSIXFile.syncData(fd, path: logPath)
        } catch {
            _ = ftruncate(fd, off_t(end))
            unlink(markerPath)
            throw error.storeError
        }
        // Committed. What `store.json` holds now, to put back if the files cannot be written.
        let previousStore = record.store == nil ? nil : storeBeforeChange()
        var storeWritten = false
        do throws(POSIXFile.Failure) {
            try writeFiles(of: record, storeWritten: &storeWritten)
        } catch {
            // Taken back when it can be: the appends cut, `store.json` put back, the record cut
            // from the log. Else the marker stays, and the next command writes the record again.
            let undone = !storeWritten || putBack(store: previousStore)
            if undone {
                for append in record.appends { POSIXFile.truncate(path(of: append.file), to: append.from) }
                if ftruncate(fd, off_t(end)) == 0, (try? POSIXFile.syncData(fd, path: logPath)) != nil {
                    unlink(markerPath)
                }
            }
            throw error.storeError
        }
        unlink(markerPath)
        // The change is made: a checkpoint that fails is tried again by the next change. Where
        // the system does not tell its boots apart a restart would go unnoticed, so every
        // change is checkpointed at once.
        if marker.to > CommitLog.checkpointSize || !SystemBoot.isKnown { try? checkpointLog() }
    }

    /// Writes a record's files, without fsync: the appends (each file cut to where it starts),
    /// then `store.json`, then the snapshot — the moment the change is seen — each through a
    /// temp file and a rename. Every step can be done again.
    /// - Parameter storeWritten: set once `store.json` is replaced.
    func writeFiles(of record: CommitRecord, storeWritten: inout Bool) throws(POSIXFile.Failure) {
        for append in record.appends {
            try POSIXFile.writeUnsynced(append.bytes, to: path(of: append.file), at: append.from)
        }
        if let store = record.store {
            try POSIXFile.replaceUnsynced(POSIXFile.resolvedSymlink(location.appStatePath), with: store)
            storeWritten = true
        }
        if let snapshot = record.snapshot {
            try POSIXFile.replaceUnsynced(POSIXFile.resolvedSymlink(path(of: snapshot.file)), with: snapshot.bytes)
        }
    }

    /// Finishes or undoes the change a marker names: when its record is whole in the log, the
    /// log is synced and the record's files written again; else the log is cut back to where
    /// the record began. Either way the marker goes. Under the lock.
    /// - Returns: true when rolled forward.
    /// - Throws: `StateError.rejectedIntent` for a record that is not one iapsim writes (the
    ///   marker is moved aside); `.io` when a file cannot be written (the marker stays).
    func recover(_ marker: CommitMarker, at markerPath: String) throws(StateError) -> Bool {
        let logPath = commitLogPath
        var line: [UInt8] = []
        if let data = try? POSIXFile.readIfPresent(logPath, from: marker.from) {
            line = [UInt8](data.prefix(Int(marker.to - marker.from)))
        }
        let whole =
            line.count == Int(marker.to - marker.from)
            && line.withUnsafeBufferPointer { Self.checksum($0) } == marker.checksum
        guard whole else {
            POSIXFile.truncate(logPath, to: marker.from)
            do throws(POSIXFile.Failure) {
                try POSIXFile.remove(markerPath)
            } catch {
                throw error.storeError
            }
            return false
        }
        POSIXFile.sync(logPath)
        let record: CommitRecord
        do throws(Reader.Failure) {
            record = try CommitRecord(line: line[...])
        } catch {
            try setAside(markerPath, reason: "its record in \(CommitLog.fileName) does not read: \(error.message)")
        }
        try check(record, rejecting: markerPath)
        var storeWritten = false
        do throws(POSIXFile.Failure) {
            try writeFiles(of: record, storeWritten: &storeWritten)
            try POSIXFile.remove(markerPath)
        } catch {
            throw error.storeError
        }
        return true
    }

    /// A record names only files a change writes, where a change writes them
    /// (`StateCommit.validate`, without the committed marks, which a restart may have lost).
    /// - Throws: `StateError.rejectedIntent` with `file` moved aside.
    private func check(_ record: CommitRecord, rejecting file: String) throws(StateError) {
        var marks = StateCommit.IntentMarks()
        if let snapshot = record.snapshot,
            let state = try? Self.decode(Data(snapshot.bytes), path: path(of: snapshot.file))
        {
            marks.journal = state.account.journalLength
        }
        if let store = record.store, let app = try? AppState.decode(Data(store), path: location.appStatePath) {
            marks.outbox = app.notificationsLength
        }
        do throws(StateCommit.Rejection) {
            try record.commit.validate(marks: marks, committed: { _ in nil })
        } catch {
            try setAside(file, reason: error.reason)
        }
    }

    /// Whether the log may hold records a restart has not seen written: it has records and
    /// was last changed before this boot. One `stat`, for readers, until it once says no (the
    /// store's cache keeps that); the lock's holder checks the boot the log names
    /// (`replayLogIfRestarted`).
    func logMayNeedReplay() -> Bool {
        if cache.commitLogIsOfThisBoot { return false }
        let signature = FileSignature.of(commitLogPath)
        let changed = Double(signature.modifiedSeconds) + Double(signature.modifiedNanoseconds) / 1e9
        if signature.size > UInt64(CommitLog.headerLength), changed < SystemBoot.startedAt { return true }
        // No record, or the last one written in this boot: so it stays while this process runs.
        cache.commitLogIsOfThisBoot = true
        return false
    }

    /// After a restart, writes every record of the log again, in order, then checkpoints: what
    /// was written without fsync before the restart may be lost. A last record cut short (the
    /// restart came while it was appended, before its change was told) is cut off. Under the
    /// lock, first.
    /// - Throws: `StateError.rejectedIntent` for a log that is not iapsim's (moved aside);
    ///   `.io` when a file cannot be written.
    func replayLogIfRestarted() throws(StateError) {
        let logPath = commitLogPath
        guard let size = FileSystem.size(logPath), size > UInt64(CommitLog.headerLength) else { return }
        // The header first: the whole log is read only after a restart.
        var header = [UInt8](repeating: 0, count: CommitLog.headerLength)
        let fd = open(logPath, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw POSIXFile.Failure(path: logPath, code: errno).storeError }
        let count = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        guard count == CommitLog.headerLength, let boot = CommitLog.boot(ofHeader: header) else {
            try setAside(logPath, reason: "it does not begin with a commit log's header")
        }
        guard boot != SystemBoot.identifier(), let log = try readLog() else { return }
        for (index, line) in log.lines.enumerated() {
            let record: CommitRecord
            do throws(Reader.Failure) {
                record = try CommitRecord(line: log.bytes[line])
            } catch {
                guard index == log.lines.count - 1, line.upperBound + 1 == log.bytes.count else {
                    try setAside(logPath, reason: "a record at byte \(line.lowerBound) does not read: \(error.message)")
                }
                POSIXFile.truncate(logPath, to: UInt64(line.lowerBound))
                break
            }
            try check(record, rejecting: logPath)
            var storeWritten = false
            do throws(POSIXFile.Failure) {
                try writeFiles(of: record, storeWritten: &storeWritten)
            } catch {
                throw error.storeError
            }
        }
        // A last line without its newline: torn.
        POSIXFile.truncate(logPath, to: UInt64(log.wholeLength))
        try checkpointLog()
    }

    /// The log's bytes, the ranges of its whole records (each line without its newline, after
    /// the header) and the length they end at; nil without a log.
    private func readLog() throws(StateError) -> (bytes: [UInt8], lines: [Range<Int>], wholeLength: Int)? {
        let data: Data?
        do throws(POSIXFile.Failure) {
            data = try POSIXFile.readIfPresent(commitLogPath)
        } catch {
            throw error.storeError
        }
        guard let data else { return nil }
        let bytes = [UInt8](data)
        var lines: [Range<Int>] = []
        var start = CommitLog.headerLength
        while start < bytes.count, let newline = bytes[start...].firstIndex(of: 0x0A) {
            lines.append(start..<newline)
            start = newline + 1
        }
        return (bytes, lines, min(start, bytes.count))
    }

    /// Syncs every file the log's records wrote, and their folders, then empties the log (its
    /// header names this boot) and syncs it: what the records committed no longer needs them.
    /// Under the lock; also before a change that removes files, which goes through an intent.
    func checkpointLog() throws(StateError) {
        let logPath = commitLogPath
        guard let size = FileSystem.size(logPath), size > UInt64(CommitLog.headerLength),
            let log = try readLog()
        else { return }
        var files: [String] = []
        for line in log.lines {
            if let record = try? CommitRecord(line: log.bytes[line]) {
                for file in record.files where !files.contains(file) { files.append(file) }
            }
        }
        var folders: [String] = []
        for file in files {
            let target = POSIXFile.resolvedSymlink(path(of: file))
            POSIXFile.sync(target)
            let folder = FileSystem.folder(of: target)
            if !folders.contains(folder) { folders.append(folder) }
        }
        for folder in folders { POSIXFile.syncDirectory(folder) }
        let fd = open(logPath, O_RDWR | O_CLOEXEC)
        if fd < 0 { throw POSIXFile.Failure(path: logPath, code: errno).storeError }
        defer { close(fd) }
        do throws(POSIXFile.Failure) {
            try POSIXFile.writeAt(CommitLog.header(boot: SystemBoot.identifier()), to: fd, at: 0, path: logPath)
            if ftruncate(fd, off_t(CommitLog.headerLength)) != 0 { throw POSIXFile.Failure(path: logPath, code: errno) }
            try POSIXFile.syncData(fd, path: logPath)
        } catch {
            throw error.storeError
        }
    }
}
