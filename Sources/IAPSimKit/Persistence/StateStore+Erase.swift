import Foundation
import IAPSimJSON

/// Removing state: all of it (`reset --all`, or a corrupt state), or the history alone.
extension StateStore {
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
        return try holdingLock(recovering: false) {
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
            let removed = (files + [commitPath, commitLogPath]).filter(FileSystem.entryExists)
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
                    try? POSIXFile.remove(commitLogPath)
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
}
