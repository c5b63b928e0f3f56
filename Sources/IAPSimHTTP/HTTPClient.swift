import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 client on POSIX sockets, for POSTing JSON: one request per connection
/// (`Connection: close`), every step (connect, send, receive) bounded by one deadline, so it
/// never hangs.
public enum HTTPClient {
    /// What came back: the status code, or why nothing usable did.
    public enum Outcome: Sendable, Equatable {
        /// The endpoint answered with this status code.
        case response(status: Int)
        /// No usable answer: which step failed, and the system's words for it.
        case failed(Failure, detail: String)
        /// `isCancelled` said to stop (a signal asked the program to end): the request was
        /// abandoned where it was, within a tenth of a second.
        case cancelled
    }

    /// Why a request got no usable answer.
    public enum Failure: Sendable, Equatable, CaseIterable {
        /// The deadline passed while connecting, sending or waiting for the status line.
        case timedOut
        /// The host did not resolve, the connection was refused or reset, or sending failed.
        case socketError
        /// The connection closed before a byte of response arrived.
        case noResponse
        /// The connection closed in the middle of the status line.
        case prematureClose
        /// What came back does not start with an HTTP/1.x status line.
        case invalidResponse
    }

    /// The header fields the client writes itself, which frame the request or pick the
    /// connection's fate: a second one would make the request ambiguous (two lengths, a
    /// length and a chunked coding) or hang the read of the answer. Compared ignoring case.
    public static let reservedHeaderNames: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// Whether `name` is one of `reservedHeaderNames`.
    public static func isReserved(headerName name: String) -> Bool { reservedHeaderNames.contains(name.lowercased()) }

    /// The `Host` field's value for `endpoint`: an IPv6 address in brackets (RFC 9110 §7.2),
    /// so `::1` port 8080 is `[::1]:8080`.
    public static func hostField(_ endpoint: HTTPEndpoint) -> String {
        (endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host) + ":\(endpoint.port)"
    }

    /// POSTs `body` to `endpoint` as `application/json`, with `headers` added; a header the
    /// client writes itself (`reservedHeaderNames`) is left out.
    /// - Parameter isCancelled: asked at least every tenth of a second while the request
    ///   waits (connecting, sending, receiving); true abandons it (`.cancelled`).
    public static func post(
        _ endpoint: HTTPEndpoint, body: [UInt8], headers: [(String, String)] = [], timeout: Double,
        isCancelled: () -> Bool = { false }
    ) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        let fd: Int32
        switch connect(endpoint, deadline: deadline, isCancelled: isCancelled) {
        case .success(let socket): fd = socket
        case .failure(let failure): return failure.outcome
        }
        defer { close(fd) }
        var request = "POST \(endpoint.path) HTTP/1.1\r\nHost: \(hostField(endpoint))\r\n"
        request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        request += "User-Agent: iapsim\r\n"
        for (name, value) in headers where !isReserved(headerName: name) { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        if let failure = send(fd, Array(request.utf8) + body, deadline: deadline, isCancelled: isCancelled) {
            return failure
        }
        return receiveStatus(fd, deadline: deadline, isCancelled: isCancelled)
    }

    private static func remainingMilliseconds(_ deadline: Date) -> Int32 {
        Int32(max(0, min(Double(Int32.max), deadline.timeIntervalSinceNow * 1000)))
    }

    /// Waits for `events` on `fd` until `deadline`, a tenth of a second at a time, asking
    /// `isCancelled` between: poll's answer (> 0 ready, 0 the deadline passed), or nil once
    /// cancelled.
    private static func wait(_ fd: Int32, for events: Int32, deadline: Date, isCancelled: () -> Bool) -> Int32? {
        while true {
            if isCancelled() { return nil }
            let remaining = remainingMilliseconds(deadline)
            var poller = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&poller, 1, min(remaining, 100))
            if ready > 0 { return ready }
            if ready < 0, errno != EINTR { return ready }
            if remaining <= 100, ready == 0 { return 0 }
        }
    }

    private static func connect(_ endpoint: HTTPEndpoint, deadline: Date, isCancelled: () -> Bool) -> Result<
        Int32, ConnectFailure
    > {
        var hints = SocketIO.streamHints()
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list) == 0, let first = list else {
            return .failure(ConnectFailure(.failed(.socketError, detail: "cannot resolve \(endpoint.host)")))
        }
        defer { freeaddrinfo(list) }
        var lastError = "connection refused"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            if fd < 0 { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            #if canImport(Darwin)
                var one: Int32 = 1
                setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            if systemConnect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return .success(fd) }
            guard errno == EINPROGRESS else {
                lastError = String(cString: strerror(errno))
                close(fd)
                continue
            }
            guard let ready = wait(fd, for: Int32(POLLOUT), deadline: deadline, isCancelled: isCancelled) else {
                close(fd)
                return .failure(ConnectFailure(.cancelled))
            }
            if ready == 0 {
                close(fd)
                return .failure(ConnectFailure(.failed(.timedOut, detail: "connecting timed out")))
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if ready > 0, error == 0 { return .success(fd) }
            lastError = String(cString: strerror(error != 0 ? error : errno))
            close(fd)
        }
        return .failure(ConnectFailure(.failed(.socketError, detail: lastError)))
    }

    private struct ConnectFailure: Error {
        var outcome: Outcome
        init(_ outcome: Outcome) { self.outcome = outcome }
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8], deadline: Date, isCancelled: () -> Bool) -> Outcome? {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { buffer -> Int in
                #if canImport(Glibc)
                    Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(fd, buffer.baseAddress, buffer.count, 0)
                #endif
            }
            if sent > 0 {
                offset += sent
                continue
            }
            if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                guard let ready = wait(fd, for: Int32(POLLOUT), deadline: deadline, isCancelled: isCancelled) else {
                    return .cancelled
                }
                if ready == 0 { return .failed(.timedOut, detail: "sending timed out") }
                continue
            }
            return .failed(.socketError, detail: "sending failed: \(String(cString: strerror(errno)))")
        }
        return nil
    }

    /// Reads the response to its end and takes its status line.
    private static func receiveStatus(_ fd: Int32, deadline: Date, isCancelled: () -> Bool) -> Outcome {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while received.count < 1 << 20 {
            guard let ready = wait(fd, for: Int32(POLLIN), deadline: deadline, isCancelled: isCancelled) else {
                return .cancelled
            }
            if ready == 0 {
                return statusLine(received) != nil
                    ? .response(status: statusLine(received)!)
                    : .failed(.timedOut, detail: "no response in time")
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
                continue
            }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            break  // closed, or reset
        }
        guard !received.isEmpty else { return .failed(.noResponse, detail: "the connection closed without a response") }
        guard let status = statusLine(received) else {
            return received.count < 12
                ? .failed(.prematureClose, detail: "the connection closed mid-response")
                : .failed(.invalidResponse, detail: "not an HTTP response")
        }
        return .response(status: status)
    }

    /// The status code of `HTTP/1.x NNN …` at the start of `bytes`.
    static func statusLine(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 12, Array(bytes[0..<7]) == Array("HTTP/1.".utf8), bytes[8] == 0x20 else { return nil }
        let digits = bytes[9..<12]
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}

private func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.connect(fd, address, length)
    #else
        Darwin.connect(fd, address, length)
    #endif
}
