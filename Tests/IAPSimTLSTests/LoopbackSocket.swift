import Foundation
import IAPSimTLS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket on 127.0.0.1 for the tests: a listener on an OS-picked port, and accepted
/// connections used as a `TLSTransport` with poll-bounded reads and writes (the shape of
/// IAPSimHTTP's SocketIO, which this target does not import).
struct LoopbackSocket: TLSTransport {
    let fd: Int32

    struct Failure: Error, CustomStringConvertible {
        let call: String
        var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
    }

    /// A listening socket on 127.0.0.1 port 0; returns it and the port the OS chose.
    static func listen() throws -> (LoopbackSocket, UInt16) {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else { throw Failure(call: "bind/listen") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (LoopbackSocket(fd: fd), UInt16(bigEndian: address.sin_port))
    }

    /// Connects to 127.0.0.1:`port` (for tests that play the client themselves).
    static func connect(port: UInt16) throws -> LoopbackSocket {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw Failure(call: "connect") }
        return LoopbackSocket(fd: fd)
    }

    /// Waits until `deadline` for a connection.
    func accept(until deadline: ContinuousClock.Instant) -> LoopbackSocket? {
        guard wait(for: Int16(POLLIN), until: deadline) else { return nil }
        let client = Glibc.accept(fd, nil, nil)
        return client >= 0 ? LoopbackSocket(fd: client) : nil
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
        }
    }

    func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) -> TLSTransportReceived {
        guard wait(for: Int16(POLLIN), until: deadline) else { return .timedOut }
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? .bytes(count) : count == 0 ? .closed : .failed
    }

    func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard wait(for: Int16(POLLOUT), until: deadline) else { return false }
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    func close() {
        _ = Glibc.close(fd)
    }
}
