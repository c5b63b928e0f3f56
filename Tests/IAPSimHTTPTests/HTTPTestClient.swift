import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP client for the server tests, every call bounded by a socket timeout, so a
/// test whose server misbehaves fails instead of hanging.
final class HTTPTestClient {
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let fd: Int32
    private var received: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; nil when the connection is refused.
    init?(port: UInt16, timeout: Double = 5) {
        #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        var time = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let sent = bytes[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
            #else
                let sent = bytes[offset...].withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) }
            #endif
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads more bytes; false at the end of the stream, an error or the timeout.
    private func fill() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        received += buffer[0..<count]
        return true
    }

    /// The next response (framed by Content-Length, or the end of the stream); nil when the
    /// connection ends or times out first. `head` is true for the answer to HEAD.
    func readResponse(head: Bool = false) -> Response? {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find(Array("\r\n\r\n".utf8), in: received).map { $0 + 4 }
            if headEnd == nil, !fill() { return nil }
        }
        let headText = String(decoding: received[0..<headEnd!], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: [])
        let length =
            head || status == 204 || status / 100 == 1 ? 0 : response.header("Content-Length").flatMap { Int($0) }
        if let length {
            while received.count < headEnd! + length { if !fill() { return nil } }
            response.body = Array(received[headEnd!..<(headEnd! + length)])
            received.removeFirst(headEnd! + length)
        } else {
            while fill() {}
            response.body = Array(received[headEnd!...])
            received = []
        }
        return response
    }

    /// Whether the server closed the connection (rather than the read timing out).
    func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, 0)
        if count > 0 { received.append(byte) }
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    /// One request on a new connection: `GET path` with `Connection: close`.
    static func get(_ path: String, port: UInt16, timeout: Double = 5) -> Response? {
        guard let client = HTTPTestClient(port: port, timeout: timeout) else { return nil }
        client.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        return client.readResponse()
    }
}

/// Runs `body(0..<count)` each on a thread of its own, and waits for all of them without
/// blocking the test's task (the clients block on sockets; the cooperative pool must not).
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let remaining = ThreadCounter(count, continuation)
        for index in 0..<count {
            let thread = Thread {
                body(index)
                remaining.done()
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }
}

private final class ThreadCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    private let continuation: CheckedContinuation<Void, Never>

    init(_ count: Int, _ continuation: CheckedContinuation<Void, Never>) {
        remaining = count
        self.continuation = continuation
        if count == 0 { continuation.resume() }
    }

    func done() {
        let finished = lock.withLock {
            remaining -= 1
            return remaining == 0
        }
        if finished { continuation.resume() }
    }
}

/// Values collected from many threads.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}
