import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX calls the server makes, each bounded by a deadline on the monotonic clock:
/// sockets are non-blocking and every wait is a `poll` with what remains of the deadline.
enum SocketIO {
    enum Wait: Equatable { case ready, timedOut, failed }
    enum Received: Equatable {
        case bytes(Int)
        case closed, timedOut, failed
    }

    /// `getaddrinfo` hints for a TCP stream of either address family, with `flags`.
    static func streamHints(flags: Int32 = 0) -> addrinfo {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = flags
        return hints
    }

    /// Non-blocking, close-on-exec, no Nagle delay (each response is one write), no SIGPIPE.
    static func configure(accepted fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// What remains until `deadline`, in whole milliseconds rounded up, for `poll`.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return Int32.max }
        return Int32(clamping: milliseconds.partialValue + attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Waits until `fd` is ready for `events` (or hung up, which a read then reports).
    static func wait(_ fd: Int32, for events: Int32, until deadline: ContinuousClock.Instant) -> Wait {
        while true {
            var poller = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&poller, 1, milliseconds(until: deadline))
            if ready > 0 { return poller.revents & Int16(POLLNVAL) != 0 ? .failed : .ready }
            if ready == 0 {
                if ContinuousClock.now >= deadline { return .timedOut }
                continue  // woke a little early: the millisecond rounding
            }
            if errno != EINTR { return .failed }
        }
    }

    /// Reads what has arrived (up to `buffer.count` bytes) into `buffer`, waiting for some
    /// until `deadline`.
    static func receive(_ fd: Int32, into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) -> Received {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                switch wait(fd, for: Int32(POLLIN), until: deadline) {
                case .ready: continue
                case .timedOut: return .timedOut
                case .failed: return .failed
                }
            default: return .failed
            }
        }
    }

    /// Writes all of `bytes`; false when the peer is gone or stops reading until `deadline`.
    static func send(_ fd: Int32, _ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer -> Int in
                #if canImport(Glibc)
                    Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(fd, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
            }
            if sent > 0 {
                offset += sent
                continue
            }
            if sent < 0, errno == EINTR { continue }
            guard sent < 0, errno == EAGAIN || errno == EWOULDBLOCK,
                wait(fd, for: Int32(POLLOUT), until: deadline) == .ready
            else { return false }
        }
        return true
    }

    /// Closes after a final response without losing it: a close with unread input makes the
    /// kernel send a reset, which can discard the response before the client reads it. So
    /// stop writing, then read and drop what still comes, bounded in bytes and time.
    static func drainBeforeClose(_ fd: Int32, for duration: Duration) {
        _ = shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + duration
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        for _ in 0..<64 {
            guard case .bytes = receive(fd, into: &scratch, until: deadline) else { return }
        }
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Starts a detached thread running `body`; returns 0 or the error number.
    static func spawnThread(_ body: @escaping @Sendable () -> Void) -> Int32 {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        #if canImport(Glibc)
            var thread = pthread_t()
            let result = pthread_create(
                &thread, &attributes,
                { pointer in
                    guard let pointer else { return nil }
                    Unmanaged<ThreadBody>.fromOpaque(pointer).takeRetainedValue().run()
                    return nil
                }, box)
        #else
            var thread: pthread_t?
            let result = pthread_create(
                &thread, &attributes,
                { pointer in
                    Unmanaged<ThreadBody>.fromOpaque(pointer).takeRetainedValue().run()
                    return nil
                }, box)
        #endif
        if result != 0 { Unmanaged<ThreadBody>.fromOpaque(box).release() }
        return result
    }

    private final class ThreadBody {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
