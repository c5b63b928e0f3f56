import Foundation
import IAPSimTLS

/// A TLS server for the interop tests: it accepts up to `connections` clients on 127.0.0.1
/// (one thread, one at a time, each bounded by a deadline), reads one HTTP request head over
/// TLS and answers it with `200 pong`, and records how each connection went.
final class TestHTTPSServer: @unchecked Sendable {
    struct Connection: Sendable {
        var negotiation: TLSNegotiation?
        var request = ""
        var error: TLSError?
    }

    let port: UInt16
    private let listener: LoopbackSocket
    private let lock = NSLock()
    private var finished = false
    private var connectionsSeen: [Connection] = []
    private let done = DispatchSemaphore(value: 0)

    init(configuration: TLSServerConfiguration, connections: Int, deadline: Duration = .seconds(30)) throws {
        (listener, port) = try LoopbackSocket.listen()
        let listener = listener
        let end = ContinuousClock.now + deadline
        Thread.detachNewThread { [self] in
            for _ in 0..<connections {
                guard let socket = listener.accept(until: end) else { break }
                let connection = Self.serve(socket, configuration: configuration, until: min(end, .now + .seconds(15)))
                socket.close()
                lock.withLock { connectionsSeen.append(connection) }
            }
            listener.close()
            done.signal()
        }
    }

    private static func serve(
        _ socket: LoopbackSocket, configuration: TLSServerConfiguration, until deadline: ContinuousClock.Instant
    ) -> Connection {
        var connection = Connection()
        var stream = TLSServerStream(configuration: configuration, transport: socket)
        do {
            try stream.handshake(until: deadline)
            connection.negotiation = stream.negotiation
            var request = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            // One request head, bounded in size and time.
            while request.count < 16 * 1024, !request.ends(with: Array("\r\n\r\n".utf8)) {
                let count = try stream.read(into: &buffer, until: deadline)
                guard count > 0 else { break }
                request += buffer[0..<count]
            }
            connection.request = String(decoding: request, as: UTF8.self)
            let body = "pong\n"
            let response =
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(body)"
            try stream.write(Array(response.utf8), until: deadline)
            stream.close(until: deadline)
            // Let the client read the answer and close first.
            _ = try? stream.read(into: &buffer, until: min(deadline, .now + .seconds(2)))
        } catch {
            connection.error = error
        }
        return connection
    }

    /// Waits (bounded) for the accept loop to end, and returns what each connection did.
    func connections(waiting: Duration = .seconds(40)) -> [Connection] {
        _ = done.wait(timeout: .now() + .milliseconds(Int(waiting.components.seconds * 1000)))
        return lock.withLock { connectionsSeen }
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
