#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The running system's boot: the index is written without fsync, so after a restart any of
/// its parts may be missing or old, and an index from an earlier boot is rebuilt.
enum SystemBoot {
    /// 16 bytes that differ from boot to boot; zeros where the system does not say (then an
    /// index is trusted across restarts, with its checksums as the only guard). Read once
    /// per process: the boot does not change while it runs.
    static func identifier() -> [UInt8] { current }

    private static let current: [UInt8] = fromSystem()

    /// Whether the system tells its boots apart (`identifier()` is not all zeros).
    static let isKnown = current.contains { $0 != 0 }

    /// When the system booted, in real time (seconds since 1970); 0 where it does not say. A
    /// file last changed before it was written in an earlier boot. Read once per process.
    static let startedAt: Double = {
        #if os(Linux)
            var real = timespec()
            var sinceBoot = timespec()
            guard clock_gettime(CLOCK_REALTIME, &real) == 0, clock_gettime(CLOCK_BOOTTIME, &sinceBoot) == 0 else {
                return 0
            }
            return Double(real.tv_sec - sinceBoot.tv_sec) + Double(real.tv_nsec - sinceBoot.tv_nsec) / 1e9
        #elseif canImport(Darwin)
            var boot = timeval()
            var size = MemoryLayout<timeval>.size
            guard sysctlbyname("kern.boottime", &boot, &size, nil, 0) == 0 else { return 0 }
            return Double(boot.tv_sec) + Double(boot.tv_usec) / 1e6
        #else
            return 0
        #endif
    }()

    private static func fromSystem() -> [UInt8] {
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
