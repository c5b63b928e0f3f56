#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Delivery attempts, written as each delivery ends: one line appended to the notifications
/// journal under the state's lock, without rewriting the snapshot. The lines past the
/// snapshot's mark are replayed by every read (`replayNotifications` counts the notifications
/// among them), and `settleNotifications` moves the mark once they add up.
extension StateStore {
    /// Where one notification's line lies in the journal, and a checksum of its bytes: what
    /// an attempt is recorded against, checked under the lock.
    struct NotificationLine: Equatable, Sendable {
        var offset: UInt64
        var length: Int
        var checksum: UInt64
    }

    /// Appends `attempt` to the notifications journal under the state's lock, after any torn
    /// last line (a crash mid-append) is cut off; not fsynced (`syncNotifications` does that
    /// for a batch). Nothing is written when `line` no longer holds the notification the
    /// attempt belongs to: the history was erased meanwhile (`reset`).
    /// - Returns: the offset the attempt's line starts at; nil when the notification is gone.
    /// - Throws: `StateError.busy`, `.io` or `.cannotCreate`.
    func appendAttempt(_ attempt: DeliveryAttempt, of line: NotificationLine) throws -> UInt64? {
        var bytes: [UInt8] = []
        Outbox.Record.attempt(attempt).json.write(to: &bytes, indent: nil)
        bytes.append(0x0A)
        let path = location.notificationsPath
        return try holdingLock {
            do throws(POSIXFile.Failure) {
                return try Self.append(bytes, to: path, ifHolding: line)
            } catch {
                throw error.storeError
            }
        }
    }

    /// fsyncs the notifications journal: the attempts appended so far survive a power loss.
    func syncNotifications() throws(StateError) {
        let path = location.notificationsPath
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return }
            throw POSIXFile.Failure(path: path, code: errno).storeError
        }
        defer { close(fd) }
        if fsync(fd) != 0 { throw POSIXFile.Failure(path: path, code: errno).storeError }
    }

    /// Writes the snapshot again when the notifications journal has grown `lag` bytes or more
    /// past its mark, so that reads replay no more than that.
    func settleNotifications(lag: UInt64) throws {
        guard let size = FileSystem.size(location.notificationsPath),
            size >= (try readSnapshot().outbox.journalLength) + max(lag, 1)
        else { return }
        try holdingLock {
            var state = try read()
            guard state.outbox.journalLength > (try readSnapshot().outbox.journalLength) else { return }
            try write(&state, index: nil)
        }
    }

    /// FNV-1a of a line's bytes.
    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    private static func append(_ bytes: [UInt8], to path: String, ifHolding line: NotificationLine)
        throws(POSIXFile.Failure) -> UInt64?
    {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw POSIXFile.Failure(path: path, code: errno)
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { throw POSIXFile.Failure(path: path, code: errno) }
        let end = try completeLength(fd, size: UInt64(info.st_size), path: path)
        guard line.offset + UInt64(line.length) < end else { return nil }
        var held = [UInt8](repeating: 0, count: line.length + 1)
        guard try readAt(fd, line.offset, into: &held, path: path) == held.count, held.last == 0x0A,
            held.dropLast().withUnsafeBufferPointer({ checksum($0) }) == line.checksum
        else { return nil }
        if end < UInt64(info.st_size), ftruncate(fd, off_t(end)) != 0 {
            throw POSIXFile.Failure(path: path, code: errno)
        }
        do throws(POSIXFile.Failure) {
            try POSIXFile.writeAt(bytes, to: fd, at: end, path: path)
        } catch {
            _ = ftruncate(fd, off_t(end))  // no half-written line left behind (a full disk)
            throw error
        }
        return end
    }

    /// The length of the file up to the end of its last complete line.
    private static func completeLength(_ fd: Int32, size: UInt64, path: String) throws(POSIXFile.Failure) -> UInt64 {
        var end = size
        var chunk = [UInt8](repeating: 0, count: 4096)
        while end > 0 {
            let start = end - min(end, UInt64(chunk.count))
            let count = try readAt(fd, start, into: &chunk, path: path, count: Int(end - start))
            if let newline = chunk[0..<count].lastIndex(of: 0x0A) { return start + UInt64(newline) + 1 }
            end = start
        }
        return 0
    }

    private static func readAt(
        _ fd: Int32, _ offset: UInt64, into buffer: inout [UInt8], path: String, count: Int? = nil
    ) throws(POSIXFile.Failure) -> Int {
        let wanted = count ?? buffer.count
        var total = 0
        while total < wanted {
            let read = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + total, wanted - total, off_t(offset) + off_t(total))
            }
            if read < 0 {
                if errno == EINTR { continue }
                throw POSIXFile.Failure(path: path, code: errno)
            }
            if read == 0 { break }
            total += read
        }
        return total
    }
}
