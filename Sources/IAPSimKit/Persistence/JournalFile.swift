#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A JSONL journal read a piece at a time: lines in order from an offset, or single lines by
/// offset (the index's look-ups), through a window that follows the reader along the file.
/// Memory stays at the window's size however long the journal grows.
final class JournalFile {
    let path: String
    private let fd: Int32
    /// Bytes of the file from `windowStart`.
    private var window: [UInt8] = []
    private var windowStart: UInt64 = 0
    /// Reads ahead this much when the reader moves forward through the file.
    private static let chunk = 256 * 1024

    /// Opens `path`; nil when there is no such file.
    init?(path: String) throws(POSIXFile.Failure) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw POSIXFile.Failure(path: path, code: errno)
        }
    }

    deinit { close(fd) }

    /// Calls `body` with each complete line from byte `offset` on (without its newline) and
    /// the offset just past its newline. A torn last line (no newline: a crash mid-append) is
    /// not a line.
    func forEachLine<E: Error>(
        from offset: UInt64, _ body: (UnsafeBufferPointer<UInt8>, UInt64) throws(E) -> Void
    ) throws(JournalReadError<E>) {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var kept = 0  // bytes of a line begun in the previous read
        var position = offset  // the file offset of buffer[0]
        while true {
            // A line longer than the buffer: make room for the rest of it.
            if kept == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let count: Int
            do {
                count = try readAt(position + UInt64(kept), into: &buffer, from: kept)
            } catch {
                throw .io(error)
            }
            if count == 0 { return }
            let filled = kept + count
            var start = 0
            var failure: E?
            buffer.withUnsafeBufferPointer { bytes in
                while start < filled, failure == nil {
                    guard let newline = memchr(bytes.baseAddress! + start, 0x0A, filled - start) else { return }
                    let end = bytes.baseAddress!.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                    do throws(E) {
                        try body(UnsafeBufferPointer(rebasing: bytes[start..<end]), position + UInt64(end + 1))
                    } catch {
                        failure = error
                    }
                    start = end + 1
                }
            }
            if let failure { throw .body(failure) }
            buffer.withUnsafeMutableBufferPointer { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, filled - start)
            }
            kept = filled - start
            position += UInt64(start)
        }
    }

    /// Calls `body` with the line that starts at `offset`, without its newline.
    /// - Throws: `.body` with what `body` threw; `.missing` when no whole line starts there.
    func line<Result, E: Error>(
        at offset: UInt64, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> Result
    ) throws(JournalReadError<E>) -> Result {
        guard offset < UInt64(Int64.max) / 2 else { throw .missing(offset: offset) }  // no file is that long
        var end = newline(from: offset)
        if end == nil {
            // Outside the window: read ahead from here when moving forward a little (a
            // listing), else just this line, keeping the window where it is.
            let forward = offset >= windowStart && offset - windowStart < UInt64(4 * Self.chunk)
            var size = forward ? Self.chunk : 4096
            var scratch: [UInt8] = []
            while end == nil {
                scratch = [UInt8](repeating: 0, count: size)
                let count: Int
                do {
                    count = try readAt(offset, into: &scratch, from: 0)
                } catch {
                    throw .io(error)
                }
                scratch.removeSubrange(count...)
                if let found = scratch.firstIndex(of: 0x0A) {
                    end = offset + UInt64(found)
                } else if count < size {
                    throw .missing(offset: offset)
                }
                size *= 4
            }
            guard forward else { return try call(body, scratch[...], count: Int(end! - offset)) }
            window = scratch
            windowStart = offset
        }
        let start = Int(offset - windowStart)
        return try call(body, window[start...], count: Int(end! - offset))
    }

    private func call<Result, E: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> Result, _ bytes: ArraySlice<UInt8>, count: Int
    ) throws(JournalReadError<E>) -> Result {
        let result: Swift.Result<Result, E> = bytes.withUnsafeBufferPointer { buffer in
            do throws(E) {
                return .success(try body(UnsafeBufferPointer(rebasing: buffer[0..<count])))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw .body(error)
        }
    }

    /// The offset of the first newline at or after `offset` inside the window.
    private func newline(from offset: UInt64) -> UInt64? {
        guard offset >= windowStart, offset < windowStart + UInt64(window.count) else { return nil }
        let start = Int(offset - windowStart)
        return window.withUnsafeBufferPointer { bytes in
            guard let found = memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start) else { return nil }
            return windowStart + UInt64(bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self)))
        }
    }

    /// Fills `buffer` from index `from` with the file's bytes at `offset`; the count read.
    private func readAt(_ offset: UInt64, into buffer: inout [UInt8], from: Int) throws(POSIXFile.Failure) -> Int {
        var total = 0
        while from + total < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + from + total, raw.count - from - total, off_t(offset) + off_t(total))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXFile.Failure(path: path, code: errno)
            }
            if count == 0 { break }
            total += count
        }
        return total
    }
}

/// What reading a journal ran into.
enum JournalReadError<Body: Error>: Error {
    case io(POSIXFile.Failure)
    /// No whole line starts at the offset an index gave.
    case missing(offset: UInt64)
    /// What the caller's closure threw.
    case body(Body)
}
