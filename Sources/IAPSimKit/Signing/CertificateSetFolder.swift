import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a certs folder holds one whole set of certificates and keys at every moment, so a
/// rotate that is killed at any step, or a command that reads during one, never sees half a set:
///
/// - each set is written whole into a fresh sibling folder `set.XXXXXX` (mode 0700, keys
///   0600), every file and the folder fsynced;
/// - `current` is a symlink to the set in use, switched with one `rename`;
/// - `root.pem`, `leaf.key` … are symlinks `current/root.pem` …, so the paths people know stay.
///
/// A set that no `current` names is a rotate that did not finish; the next rotate removes it.
enum CertificateSetFolder {
    static let pointerName = "current"

    /// What `current` names now (`set.XXXXXX`), or nil for a folder without one (empty, or
    /// written by an iapsim before sets). It changes exactly when the set does.
    /// Asked before every signing of a long-running signer, so read into a buffer on the stack.
    static func generation(of directory: String) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(PATH_MAX) + 1) { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            let count = base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { name in
                readlink(directory + "/" + pointerName, name, buffer.count - 1)
            }
            guard count > 0 else { return nil }
            return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
        }
    }

    /// Writes `files` into a new set folder and makes it current. `step` is called after each
    /// write that a crash could interrupt; a test throws from it to stop the rotate there.
    static func install(
        _ files: [(name: String, text: String)], in directory: String, step: (String) throws -> Void
    ) throws {
        removeUnused(in: directory)
        // A folder written by an iapsim before sets holds the files themselves: they become
        // links to a set of their own first, so each name is replaced by the same bytes.
        try adoptLegacyFiles(in: directory, names: files.map(\.name), step: step)
        try writeSet(files, in: directory, step: step)
    }

    private static func writeSet(
        _ files: [(name: String, text: String)], in directory: String, step: (String) throws -> Void
    ) throws {
        var template = Array((directory + "/set.XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw StateError.cannotCreate(path: directory, reason: String(cString: strerror(errno)))
        }
        let folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let name = (folder as NSString).lastPathComponent
        for file in files {
            do {
                try POSIXFile.writeAtomically(Data(file.text.utf8), to: folder + "/" + file.name)
            } catch {
                throw error.storeError
            }
            try step("wrote \(name)/\(file.name)")
        }
        POSIXFile.syncDirectory(folder)
        try step("synced \(name)")
        try link(pointerName, to: name, in: directory)
        try step("switched \(pointerName)")
        // leaf.key last: a folder is taken to have a set once it shows leaf.key.
        for file in files.sorted(by: { ($0.name == "leaf.key" ? 1 : 0) < ($1.name == "leaf.key" ? 1 : 0) }) {
            try link(file.name, to: pointerName + "/" + file.name, in: directory)
            try step("linked \(file.name)")
        }
        removeUnused(in: directory)
    }

    /// Points `name` in `directory` at `target` with one rename of a new symlink over it.
    private static func link(_ name: String, to target: String, in directory: String) throws {
        let path = directory + "/" + name
        if isLink(path, to: target) { return }
        let temporary = directory + "/." + name + ".link"
        unlink(temporary)
        guard symlink(target, temporary) == 0, rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw StateError.io(path: path, reason: String(cString: strerror(code)))
        }
        POSIXFile.syncDirectory(directory)
    }

    private static func isLink(_ path: String, to target: String) -> Bool {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        return count > 0 && String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == target
    }

    private static func adoptLegacyFiles(in directory: String, names: [String], step: (String) throws -> Void)
        throws
    {
        guard generation(of: directory) == nil,
            names.contains(where: { FileSystem.entryExists(directory + "/" + $0) && !isLink(directory + "/" + $0) })
        else { return }
        var legacy: [(name: String, text: String)] = []
        for name in names {
            guard let data = try? POSIXFile.readIfPresent(directory + "/" + name) else { return }  // no whole set
            legacy.append((name, String(decoding: data, as: UTF8.self)))
        }
        try writeSet(legacy, in: directory, step: step)
    }

    private static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Removes set folders `current` does not name: rotates that did not finish, and sets
    /// replaced. A reader of a removed set sees `current` change and reads again. Best effort.
    static func removeUnused(in directory: String) {
        let current = generation(of: directory)
        guard let names = try? FileManager().contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix("set.") && name != current {
            try? FileManager().removeItem(atPath: directory + "/" + name)
        }
    }
}
