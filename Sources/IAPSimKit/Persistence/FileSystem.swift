#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file-system questions the library asks, answered with `stat` rather than
/// `FileManager.default`, so nothing depends on process-wide state.
enum FileSystem {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether there is anything at `path`, a dangling symlink included.
    static func entryExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The size in bytes of the file at `path`, following symlinks; nil if there is none.
    static func size(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : nil
    }

    /// The folder of `path`, as `NSString.deletingLastPathComponent` gives it (`/a/b` of
    /// `/a/b/c`, `/` of `/a`, empty for a bare name), without bridging to `NSString`, which on
    /// Linux costs 20,000 instructions a call: a purchase made sixteen.
    static func folder(of path: String) -> String {
        var utf8 = Substring(path).utf8
        while utf8.count > 1, utf8.last == UInt8(ascii: "/") { utf8 = utf8.dropLast() }
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        if slash == utf8.startIndex { return "/" }
        var folder = utf8[..<slash]
        while folder.count > 1, folder.last == UInt8(ascii: "/") { folder = folder.dropLast() }
        return String(Substring(folder))
    }

    /// The last component of `path`, as `NSString.lastPathComponent` gives it (trailing
    /// slashes dropped), without bridging.
    static func name(of path: String) -> String {
        var utf8 = Substring(path).utf8
        while utf8.count > 1, utf8.last == UInt8(ascii: "/") { utf8 = utf8.dropLast() }
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")), utf8.count > 1 else { return String(Substring(utf8)) }
        return String(Substring(utf8[utf8.index(after: slash)...]))
    }
}
