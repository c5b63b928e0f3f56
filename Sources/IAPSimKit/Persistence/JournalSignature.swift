#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What identifies one state of the journal without reading it: its size, device, inode and
/// modification time. Appending changes the size and the time; an edit in place changes the
/// time; an editor that saves a new file, or a copied folder, changes the inode. The index
/// records the signature it was made from and is trusted only while the journal still has it.
struct JournalSignature: Equatable {
    var size: UInt64
    var device: UInt64
    var inode: UInt64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    /// No journal file.
    static let absent = JournalSignature(size: 0, device: 0, inode: 0, modifiedSeconds: 0, modifiedNanoseconds: 0)

    /// The signature of the file at `path` now; `absent` when there is none.
    static func of(_ path: String) -> JournalSignature {
        var info = stat()
        guard stat(path, &info) == 0 else { return .absent }
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        return JournalSignature(
            size: UInt64(info.st_size), device: UInt64(truncatingIfNeeded: info.st_dev),
            inode: UInt64(truncatingIfNeeded: info.st_ino), modifiedSeconds: Int64(modified.tv_sec),
            modifiedNanoseconds: Int64(modified.tv_nsec))
    }
}

/// The running system's boot: the index is written without fsync, so after a restart any of
/// its parts may be missing or old, and an index from an earlier boot is rebuilt.
enum SystemBoot {
    /// 16 bytes that differ from boot to boot; zeros where the system does not say (then an
    /// index is trusted across restarts, with its checksums as the only guard).
    static func identifier() -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 16)
        #if os(Linux)
            // A random UUID the kernel makes at each boot, as text.
            let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return result }
            defer { close(fd) }
            var text = [UInt8](repeating: 0, count: 64)
            let count = text.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return result }
            var index = 0
            for byte in text[0..<count] {
                let nibble: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
                default: continue
                }
                guard index < 32 else { break }
                result[index / 2] |= index % 2 == 0 ? nibble << 4 : nibble
                index += 1
            }
        #elseif canImport(Darwin)
            var boot = timeval()
            var size = MemoryLayout<timeval>.size
            guard sysctlbyname("kern.boottime", &boot, &size, nil, 0) == 0 else { return result }
            let seconds = UInt64(truncatingIfNeeded: Int64(boot.tv_sec))
            let microseconds = UInt64(truncatingIfNeeded: Int64(boot.tv_usec))
            for shift in 0..<8 {
                result[shift] = UInt8(truncatingIfNeeded: seconds >> (8 * shift))
                result[8 + shift] = UInt8(truncatingIfNeeded: microseconds >> (8 * shift))
            }
        #endif
        return result
    }
}
