import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file operations the state store needs, on plain POSIX calls so that each step
/// (fsync, rename, the folder's fsync) is explicit and each failure keeps its `errno`.
enum POSIXFile {
    struct Failure: Error {
        var path: String
        var code: Int32
        var reason: String { String(cString: strerror(code)) }

        /// Whether the failure means "cannot create here" (73) rather than an I/O error (74).
        var isPermission: Bool { [EACCES, EPERM, EROFS, ENOTDIR, EISDIR].contains(code) }

        /// As the store reports it: 73 for "cannot create here", 74 for everything else.
        var storeError: StateError {
            isPermission ? .cannotCreate(path: path, reason: reason) : .io(path: path, reason: reason)
        }
    }

    /// Creates `path` and any missing parents, each new folder mode 0700.
    static func makeDirectory(_ path: String) throws(Failure) {
        if FileSystem.isDirectory(path) { return }
        let parent = FileSystem.folder(of: path)
        if !parent.isEmpty, parent != path, parent != "/" { try makeDirectory(parent) }
        if mkdir(path, 0o700) != 0, errno != EEXIST { throw Failure(path: path, code: errno) }
        if !FileSystem.isDirectory(path) { throw Failure(path: path, code: ENOTDIR) }
    }

    /// The file from byte `offset` to its end, or nil if it does not exist.
    static func readIfPresent(_ path: String, from offset: UInt64 = 0) throws(Failure) -> Data? {
        try readIfPresent(path, from: offset, signed: false)?.data
    }

    /// The whole file, or nil if it does not exist, with the signature of the very file read.
    static func readSignedIfPresent(_ path: String) throws(Failure) -> (data: Data, signature: SettledFileSignature)? {
        try readIfPresent(path, from: 0, signed: true)
    }

    private static func readIfPresent(_ path: String, from offset: UInt64, signed: Bool) throws(Failure)
        -> (data: Data, signature: SettledFileSignature)?
    {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Failure(path: path, code: errno)
        }
        defer { close(fd) }
        let signature = signed ? FileSignature.of(descriptor: fd) : SettledFileSignature(signature: .absent, changed: 0)
        if offset > 0, lseek(fd, off_t(offset), SEEK_SET) < 0 { throw Failure(path: path, code: errno) }
        var data = Data()
        // A buffer the size of the file (a small snapshot is read in one call), at most 64 KiB.
        var info = stat()
        let expected = fstat(fd, &info) == 0 ? Int(max(0, Int64(info.st_size) - Int64(offset))) : 0
        var buffer = [UInt8](repeating: 0, count: min(max(expected + 1, 4096), 64 * 1024))
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, code: errno)
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return (data, signature)
    }

    /// Replaces `path` with `data` so that a reader, or a crash at any moment, sees either the
    /// old file or the new one whole: a temp file in the same folder (mode 0600), fsync,
    /// rename over the old one, fsync the folder. A symlink at `path` is followed, so the file
    /// it points to is replaced and the link stays.
    static func writeAtomically(_ data: Data, to path: String) throws(Failure) {
        let target = resolvedSymlink(path)
        try replace(target, syncing: true) { fd throws(Failure) in try writeAll(data, to: fd, path: target) }
        syncDirectory(FileSystem.folder(of: target))
    }

    /// `writeAtomically` without the fsync of the folder, for a commit that renames more than
    /// one file into place and then syncs their folders once (`StateStore.commit`).
    /// - Returns: the folder of the file replaced, to sync.
    static func writeSyncedLeavingFolder(_ data: Data, to path: String) throws(Failure) -> String {
        let target = resolvedSymlink(path)
        try replace(target, syncing: true) { fd throws(Failure) in try writeAll(data, to: fd, path: target) }
        return FileSystem.folder(of: target)
    }

    /// Replaces `path` with the file `write` fills, through a temp file beside it and a
    /// rename, without fsync: for a file that is rebuilt when a crash leaves it torn (the
    /// index), so a reader with the old one open keeps reading it whole.
    static func replaceUnsynced(_ path: String, writing write: (Int32) throws(Failure) -> Void) throws(Failure) {
        try replace(path, syncing: false, write)
    }

    /// The one temp-file-and-rename step both use: a 0600 temp file beside `path`, filled by
    /// `write`, fsynced when `syncing`, renamed over `path`; the temp file goes on failure.
    private static func replace(_ path: String, syncing: Bool, _ write: (Int32) throws(Failure) -> Void)
        throws(Failure)
    {
        let folder = FileSystem.folder(of: path)
        var template = Array((folder + "/." + FileSystem.name(of: path) + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { throw Failure(path: folder, code: errno) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var succeeded = false
        defer { if !succeeded { unlink(temporary) } }
        do {
            defer { close(fd) }
            if fchmod(fd, 0o600) != 0 { throw Failure(path: temporary, code: errno) }
            try write(fd)
            if syncing, fsync(fd) != 0 { throw Failure(path: path, code: errno) }
        }
        if !syncing, exchange(temporary, path) {
            // The old file is at the temp name now; a failure to remove it leaves a temp file
            // the next locked step removes (`removeTemporaries`).
            unlink(temporary)
        } else if rename(temporary, path) != 0 {
            throw Failure(path: path, code: errno)
        }
        succeeded = true
    }

    /// Swaps the files at `temporary` and `path` in one step, where the system can: on Linux,
    /// `renameat2` with `RENAME_EXCHANGE`. ext4, mounted with its default `auto_da_alloc`,
    /// starts writing a file renamed over another to the disk before the rename returns — a
    /// tenth of a millisecond a rename on a virtual disk, twice a purchase — and does not when
    /// two names are exchanged. Readers see the old file or the new one whole either way. For
    /// the unsynced replacements alone: a synced file has nothing left to write.
    /// - Returns: false where the exchange is not made (no file at `path`, a file system or
    ///   system without it): the caller renames.
    private static func exchange(_ temporary: String, _ path: String) -> Bool {
        #if os(Linux)
            guard let renameat2 = LinuxCalls.renameat2 else { return false }
            return renameat2(AT_FDCWD, temporary, AT_FDCWD, path, LinuxCalls.renameExchange) == 0
        #else
            return false
        #endif
    }

    /// Writes all of `bytes` at `offset` of the open file `fd`.
    static func writeAt(_ bytes: [UInt8], to fd: Int32, at offset: UInt64, path: String) throws(Failure) {
        var failure: Int32 = 0
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var done = 0
            while done < raw.count {
                let written = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += written
            }
        }
        if failure != 0 { throw Failure(path: path, code: failure) }
    }

    /// Removes the temp files `writeAtomically` leaves beside `path` when it is interrupted
    /// (`.purchases.json.XXXXXX`, mkstemp's six letters and digits). Call it only while holding
    /// the lock that every writer takes, so that none of them is in use.
    /// - Returns: the paths removed.
    static func removeTemporaries(of path: String) throws(Failure) -> [String] {
        try removeTemporaries(ofAll: [path])
    }

    /// `removeTemporaries(of:)` for several files, with one listing of each folder they are in.
    static func removeTemporaries(ofAll paths: [String]) throws(Failure) -> [String] {
        var prefixes: [String: [String]] = [:]
        for path in paths {
            let target = resolvedSymlink(path)
            prefixes[FileSystem.folder(of: target), default: []].append(
                "." + FileSystem.name(of: target) + ".")
        }
        var removed: [String] = []
        for (folder, folderPrefixes) in prefixes.sorted(by: { $0.key < $1.key }) {
            // readdir, not FileManager: this runs on every change, and FileManager's listing
            // costs 300,000 instructions of a purchase.
            guard let directory = opendir(folder.isEmpty ? "." : folder) else { continue }
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                }
                if name.hasPrefix("."), folderPrefixes.contains(where: { Self.isTemporary(name, of: $0) }) {
                    names.append(name)
                }
            }
            closedir(directory)
            var removedHere = false
            for name in names.sorted() {
                let stale = folder + "/" + name
                if unlink(stale) != 0, errno != ENOENT { throw Failure(path: stale, code: errno) }
                removed.append(stale)
                removedHere = true
            }
            if removedHere { syncDirectory(folder) }
        }
        return removed
    }

    /// Whether `name` is `prefix` and mkstemp's six letters and digits.
    /// Removes every temp file a kill left in `folder`, a folder iapsim alone writes (the
    /// certificate set's): `.NAME.XXXXXX`, whatever NAME. Under that folder's lock.
    /// - Returns: the paths removed.
    @discardableResult
    static func removeTemporaries(inFolder folder: String) -> [String] {
        guard let names = try? FileManager().contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(".") {
            guard let dot = name.lastIndex(of: "."), dot > name.startIndex,
                isTemporary(name, of: String(name[...dot]))
            else { continue }
            if unlink(folder + "/" + name) == 0 { removed.append(folder + "/" + name) }
        }
        if !removed.isEmpty { syncDirectory(folder) }
        return removed
    }

    private static func isTemporary(_ name: String, of prefix: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let suffix = name.utf8.dropFirst(prefix.utf8.count)
        return suffix.count == 6
            && suffix.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
    }

    /// Appends `data` to `path` (mode 0600, created if absent) and fsyncs it. The file is
    /// first cut to `length` bytes: anything past it is a torn append from a crash, never
    /// acknowledged. A new file also fsyncs its folder, so the name survives a crash.
    static func append(_ data: Data, to path: String, truncatingTo length: UInt64) throws(Failure) {
        let existed = FileSystem.exists(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw Failure(path: path, code: errno) }
        defer { close(fd) }
        if ftruncate(fd, off_t(length)) != 0 { throw Failure(path: path, code: errno) }
        if lseek(fd, off_t(length), SEEK_SET) < 0 { throw Failure(path: path, code: errno) }
        do throws(Failure) {
            try writeAll(data, to: fd, path: path)
            if fsync(fd) != 0 { throw Failure(path: path, code: errno) }
        } catch {
            _ = ftruncate(fd, off_t(length))  // leave no half-written line behind (disk full)
            throw error
        }
        if !existed { syncDirectory(FileSystem.folder(of: path)) }
    }

    /// Writes `bytes` at `offset` of `path` (mode 0600, created if absent), first cutting the
    /// file to `offset`, without fsync: for the files of a change whose commit-log record is
    /// already synced, which writes them again after a restart (`CommitRecord`).
    static func writeUnsynced(_ bytes: [UInt8], to path: String, at offset: UInt64) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw Failure(path: path, code: errno) }
        defer { close(fd) }
        if ftruncate(fd, off_t(offset)) != 0 { throw Failure(path: path, code: errno) }
        try writeAt(bytes, to: fd, at: offset, path: path)
    }

    /// `replaceUnsynced` with `bytes`: a temp file beside `path`, renamed over it, no fsync.
    static func replaceUnsynced(_ path: String, with bytes: [UInt8]) throws(Failure) {
        try replace(path, syncing: false) { fd throws(Failure) in try writeAt(bytes, to: fd, at: 0, path: path) }
    }

    /// Makes the data written to `fd` durable (`fdatasync` where there is one).
    static func syncData(_ fd: Int32, path: String) throws(Failure) {
        #if os(Linux)
            if fdatasync(fd) != 0 { throw Failure(path: path, code: errno) }
        #else
            if fsync(fd) != 0 { throw Failure(path: path, code: errno) }
        #endif
    }

    /// Cuts `path` to `length` bytes, if it is longer; best effort.
    static func truncate(_ path: String, to length: UInt64) {
        guard let size = FileSystem.size(path), size > length else { return }
        #if canImport(Glibc)
            _ = Glibc.truncate(path, off_t(length))
        #else
            _ = Darwin.truncate(path, off_t(length))
        #endif
    }

    /// fsyncs the file at `path`, if there is one; best effort.
    static func sync(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Removes `path` if it exists.
    static func remove(_ path: String) throws(Failure) {
        if unlink(path) != 0, errno != ENOENT { throw Failure(path: path, code: errno) }
        syncDirectory(FileSystem.folder(of: path))
    }

    private static func writeAll(_ data: Data, to fd: Int32, path: String) throws(Failure) {
        var failure: Int32 = 0
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure != 0 { throw Failure(path: path, code: failure) }
    }

    static func syncDirectory(_ folder: String) {
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// The file a chain of symlinks at `path` ends at, existing or not (a dangling link is
    /// followed too, so the first write creates its target).
    static func resolvedSymlink(_ path: String) -> String {
        var current = path
        for _ in 0..<16 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return current }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current =
                target.hasPrefix("/")
                ? target : FileSystem.folder(of: current) + "/" + target
        }
        return current
    }
}

#if os(Linux)
    /// glibc calls Swift's Glibc module does not import (declared only under `_GNU_SOURCE`),
    /// looked up once; nil where the C library has none.
    private enum LinuxCalls {
        typealias RenameAt2 =
            @convention(c) (
                Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32
            ) -> Int32
        /// `renameat2(2)`.
        static let renameat2: RenameAt2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: RenameAt2.self) }
        /// `RENAME_EXCHANGE` of <linux/fs.h>.
        static let renameExchange: UInt32 = 1 << 1
    }
#endif
