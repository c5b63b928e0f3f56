#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What identifies one version of a file without reading it: its size, device, inode and
/// modification time. Appending changes the size and the time; an edit in place changes the
/// time; an editor that saves a new file, a copied folder or an atomic replacement changes
/// the inode. The index records the journal's signature it was made from and is trusted only
/// while the journal still has it.
struct FileSignature: Hashable, Sendable {
    var size: UInt64
    var device: UInt64
    var inode: UInt64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    /// No file.
    static let absent = FileSignature(size: 0, device: 0, inode: 0, modifiedSeconds: 0, modifiedNanoseconds: 0)

    /// The signature of the file at `path` now; `absent` when there is none.
    static func of(_ path: String) -> FileSignature {
        var info = stat()
        guard stat(path, &info) == 0 else { return .absent }
        return FileSignature(info)
    }

    /// The signature of the open file `descriptor`: of what a read from it returns, even if
    /// its path has been given to another file since.
    static func of(descriptor: Int32) -> SettledFileSignature {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return SettledFileSignature(signature: .absent, changed: 0) }
        return SettledFileSignature(info)
    }
}

/// A file's signature with its inode's change time, which no tool can set back (`touch`
/// and `cp -p` set the modification time only): what a reader needs before it trusts a file
/// it does not read again.
struct SettledFileSignature: Hashable, Sendable {
    var signature: FileSignature
    /// The later of the modification and change times, in seconds since 1970.
    var changed: Double

    /// The signature of the file at `path` now; `absent` inside when there is none.
    static func of(_ path: String) -> SettledFileSignature {
        var info = stat()
        guard stat(path, &info) == 0 else { return SettledFileSignature(signature: .absent, changed: 0) }
        return SettledFileSignature(info)
    }

    /// Whether the file, seen at `moment` (seconds since 1970, real time), was already older
    /// than any change made after `moment` can be. File times come from a coarse clock, so
    /// two writes within one tick can leave the same time (and, with the inode reused, the
    /// same signature); a file last changed well before it was seen cannot be confused that
    /// way with a later version. Git trusts its index the same way ("racy git").
    func wasSettled(at moment: Double) -> Bool {
        signature != .absent && changed < moment - 2
    }
}

extension SettledFileSignature {
    fileprivate init(_ info: stat) {
        #if canImport(Darwin)
            let change = info.st_ctimespec
        #else
            let change = info.st_ctim
        #endif
        let signature = FileSignature(info)
        self.init(
            signature: signature,
            changed: max(
                Double(signature.modifiedSeconds) + Double(signature.modifiedNanoseconds) / 1e9,
                Double(change.tv_sec) + Double(change.tv_nsec) / 1e9))
    }
}

extension FileSignature {
    fileprivate init(_ info: stat) {
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        self.init(
            size: UInt64(info.st_size), device: UInt64(truncatingIfNeeded: info.st_dev),
            inode: UInt64(truncatingIfNeeded: info.st_ino), modifiedSeconds: Int64(modified.tv_sec),
            modifiedNanoseconds: Int64(modified.tv_nsec))
    }
}
