import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files iapsim writes outside its state folder — `serve --port-file`, `certs export` — where
/// another user may have planted a symlink (a shared `/tmp`) to make iapsim overwrite a file of
/// its choosing. None is ever followed or written through.
public enum OutsideFile {
    /// Writes `bytes` to `path` whole: a temporary file beside it, opened with `O_CREAT |
    /// O_EXCL | O_NOFOLLOW` (a name someone planted, symlink or file, is never opened), filled,
    /// fsynced and renamed over `path`. A symlink at `path` is refused: `rename` would replace
    /// the link rather than write through it, but a link there is a trap or a mistake either way.
    /// - Parameter mode: the new file's permissions, before the umask.
    /// - Throws: `StateError.cannotCreate` for a symlink, a folder or a place iapsim may not
    ///   write; `.io` when writing fails half-way (nothing is left at `path` then).
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(StateError) {
        if isSymlink(path) { throw .cannotCreate(path: path, reason: symlinkReason) }
        let folder = FileSystem.folder(of: path)
        let name = FileSystem.name(of: path)
        // A temp file a kill left beside it (`.NAME.XXXXXX`, six letters or digits, as
        // mkstemp names one) goes first: nothing else would ever remove it.
        _ = try? POSIXFile.removeTemporaries(of: path)
        var fd: Int32 = -1
        var temporary = ""
        let letters = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        for _ in 0..<8 {
            let suffix = String((0..<6).map { _ in letters[Int.random(in: 0..<letters.count)] })
            temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).\(suffix)"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw failure(path: path, code: errno) }
        var written = false
        defer { if !written { unlink(temporary) } }
        do {
            defer { close(fd) }
            try writeAll(bytes, to: fd, path: path)
            if fsync(fd) != 0 { throw failure(path: path, code: errno) }
        }
        if rename(temporary, path) != 0 { throw failure(path: path, code: errno) }
        written = true
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// Creates the folder `path` (and its parents, 0700) for files written with `write`; a
    /// symlink at `path` itself is refused, as a file's is.
    /// - Throws: `StateError.cannotCreate`.
    public static func makeDirectory(_ path: String) throws(StateError) {
        if isSymlink(path) { throw .cannotCreate(path: path, reason: symlinkReason) }
        do {
            try POSIXFile.makeDirectory(path)
        } catch {
            throw .cannotCreate(path: error.path, reason: error.reason)
        }
    }

    private static let symlinkReason =
        "it is a symbolic link, which iapsim does not write through; remove it or give another path"

    private static func isSymlink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    private static func failure(path: String, code: Int32) -> StateError {
        let failure = POSIXFile.Failure(path: path, code: code)
        return code == ELOOP ? .cannotCreate(path: path, reason: symlinkReason) : failure.storeError
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(StateError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.write(fd, buffer.baseAddress, buffer.count)
                #else
                    Darwin.write(fd, buffer.baseAddress, buffer.count)
                #endif
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path: path, code: errno)
            }
            offset += count
        }
    }
}
