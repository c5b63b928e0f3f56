import Foundation

extension StateStore {
    /// Rewrites libfaketime's timestamp file for `clock` (`Faketime.specification`), atomically
    /// (a program reading it sees the old text or the new one). Called under the lock after a
    /// change of the clock was saved; a failure to write it does not undo that change, and
    /// `clock exec` writes the file again (and reports a failure) before it starts a program.
    func writeClockFile(_ clock: SimulatedClock?) {
        try? writeClockFile(text: Faketime.specification(for: clock))
    }

    private func writeClockFile(text: String) throws(StateError) {
        let path = location.clockFilePath
        do {
            let bytes = Array((text + "\n").utf8)
            try POSIXFile.replaceUnsynced(path) { fd throws(POSIXFile.Failure) in
                try POSIXFile.writeAt(bytes, to: fd, at: 0, path: path)
            }
        } catch {
            throw .cannotCreate(path: path, reason: error.reason)
        }
    }

    /// Writes libfaketime's timestamp file for the clock the state holds now, under the lock
    /// (so a clock change in another process cannot be overwritten by an older reading).
    /// - Returns: the file's path.
    /// - Throws: `StateError` when the state cannot be read or the file cannot be written.
    public func refreshClockFile() throws -> String {
        try POSIXFile.makeDirectoryForClockFile(location.directory)
        return try holdingLock {
            let clock = try readSnapshot().simulation.clock
            try writeClockFile(text: Faketime.specification(for: clock))
            return location.clockFilePath
        }
    }
}

extension POSIXFile {
    fileprivate static func makeDirectoryForClockFile(_ directory: String) throws(StateError) {
        do {
            try makeDirectory(directory)
        } catch {
            throw .cannotCreate(path: error.path, reason: error.reason)
        }
    }
}
