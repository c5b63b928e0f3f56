#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The right to deliver a state's notifications, held by one process at a time for as long
/// as it delivers: an exclusive `flock` on `notifications.jsonl.lock`, which holds the pid of
/// its holder. Two deliverers would each post what the other has not recorded yet. The
/// kernel releases the lock when its holder exits, however it exits.
final class DeliveryLock {
    let path: String
    private let fd: Int32

    /// Waits up to `timeout` seconds for the lock.
    /// - Throws: `DeliveryError.anotherDeliverer` after the timeout; `StateError.cannotCreate`
    ///   or `.io` when the lock file cannot be made.
    init(path: String, timeout: Double) throws {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw POSIXFile.Failure(path: path, code: errno).storeError }
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        var pause: useconds_t = 1_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code != EWOULDBLOCK && code != EINTR {
                close(fd)
                throw POSIXFile.Failure(path: path, code: code).storeError
            }
            if ContinuousClock.now >= deadline {
                let holder = Self.holder(fd)
                close(fd)
                throw DeliveryError.anotherDeliverer(path: path, pid: holder, seconds: timeout)
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// The pid the holder wrote, if it did.
    private static func holder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count].prefix { $0 != 0x0A }, as: UTF8.self))
    }
}
