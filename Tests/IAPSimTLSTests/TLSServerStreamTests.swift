import Foundation
import IAPSimCrypto
import Testing

@testable import IAPSimTLS

/// The stream over real sockets: deadlines and closes that a pure engine test cannot show.
@Suite("TLS server stream")
struct TLSServerStreamTests {
    /// Accepts one connection and runs the handshake with `deadline` after `client` wrote;
    /// `then` sees the client socket before it closes. Returns the handshake's error.
    func handshakeError(
        deadline: Duration, client: (LoopbackSocket) throws -> Void, then: (LoopbackSocket) -> Void = { _ in }
    ) throws -> (TLSError?, Duration) {
        let pki = try TestPKI()
        let (listener, port) = try LoopbackSocket.listen()
        defer { listener.close() }
        let socket = try LoopbackSocket.connect(port: port)
        defer { socket.close() }
        let accepted = try #require(listener.accept(until: .now + .seconds(5)))
        defer { accepted.close() }
        try client(socket)
        var stream = TLSServerStream(configuration: pki.configuration(), transport: accepted)
        let start = ContinuousClock.now
        var failure: TLSError?
        do {
            try stream.handshake(until: .now + deadline)
        } catch {
            failure = error
        }
        let elapsed = start.duration(to: .now)
        then(socket)
        return (failure, elapsed)
    }

    @Test("a client that stalls mid-handshake is dropped at the deadline")
    func stall() throws {
        let (error, elapsed) = try handshakeError(
            deadline: .milliseconds(500),
            client: { socket in
                var client = TestTLSClient()
                _ = socket.send(Array(client.hello().prefix(60)), until: .now + .seconds(1))
            })
        #expect(error == .timedOut)
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(5))
    }

    @Test("a client that closes mid-record is connectionClosed")
    func truncated() throws {
        let (error, elapsed) = try handshakeError(
            deadline: .seconds(5),
            client: { socket in
                var client = TestTLSClient()
                _ = socket.send(Array(client.hello().prefix(60)), until: .now + .seconds(1))
                _ = shutdown(socket.fd, Int32(SHUT_WR))
            })
        #expect(error == .connectionClosed)
        #expect(elapsed < .seconds(4))
    }

    @Test("a TLS 1.2-only client gets protocol_version on the wire")
    func protocolVersionOnTheWire() throws {
        var answer = [UInt8](repeating: 0, count: 64)
        var received = TLSTransportReceived.failed
        let (error, _) = try handshakeError(
            deadline: .seconds(5),
            client: { socket in
                var offer = TestTLSClient.Offer()
                offer.versions = []
                var client = TestTLSClient(offer: offer)
                _ = socket.send(client.hello(), until: .now + .seconds(1))
            },
            then: { socket in received = socket.receive(into: &answer, until: .now + .seconds(2)) })
        #expect(error == .alertSent(.protocolVersion, reason: "the client offers only TLS 1.2 or older"))
        #expect(received == .bytes(7))
        #expect(Array(answer.prefix(7)) == [21, 3, 3, 0, 2, 2, 70])
    }

    @Test("read and write through a whole connection, with the test client over the socket")
    func roundTrip() throws {
        let pki = try TestPKI()
        let (listener, port) = try LoopbackSocket.listen()
        defer { listener.close() }
        let socket = try LoopbackSocket.connect(port: port)
        defer { socket.close() }
        let accepted = try #require(listener.accept(until: .now + .seconds(5)))
        defer { accepted.close() }
        let configuration = pki.configuration()
        let serverDone = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable {
            var echoed = 0
            var error: TLSError?
        }
        let box = Box()
        Thread.detachNewThread {
            var stream = TLSServerStream(configuration: configuration, transport: accepted)
            var buffer = [UInt8](repeating: 0, count: 1000)
            do {
                while true {
                    let count = try stream.read(into: &buffer, until: .now + .seconds(10))
                    if count == 0 { break }
                    try stream.write(buffer[0..<count], until: .now + .seconds(10))
                    box.echoed += count
                }
                stream.close(until: .now + .seconds(1))
            } catch {
                box.error = error as? TLSError ?? .transportFailed
            }
            serverDone.signal()
        }
        var client = TestTLSClient()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        func receiveAll(_ expected: Int) throws -> TestTLSClient.Received {
            var bytes = [UInt8]()
            var total = TestTLSClient.Received()
            let deadline = ContinuousClock.now + .seconds(10)
            while total.application.count < expected || (expected == 0 && total.handshakeTypes.last != 20) {
                guard case .bytes(let count) = socket.receive(into: &buffer, until: deadline) else { break }
                bytes += buffer[0..<count]
                // Whole records only.
                var end = 0
                while bytes.count - end >= 5, bytes.count - end - 5 >= Int(bytes[end + 3]) << 8 | Int(bytes[end + 4]) {
                    end += 5 + (Int(bytes[end + 3]) << 8 | Int(bytes[end + 4]))
                }
                let part = try client.receive(Array(bytes[0..<end]))
                bytes.removeFirst(end)
                total.application += part.application
                total.handshakeTypes += part.handshakeTypes
                total.alerts += part.alerts
            }
            return total
        }
        #expect(socket.send(client.hello(), until: .now + .seconds(5)))
        _ = try receiveAll(0)
        let message = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        #expect(
            socket.send(client.finished() + client.seal(message, type: .applicationData), until: .now + .seconds(5)))
        #expect(try receiveAll(message.count).application == message)
        #expect(socket.send(client.seal([1, 0], type: .alert), until: .now + .seconds(5)))
        #expect(serverDone.wait(timeout: .now() + 10) == .success)
        #expect(box.error == nil && box.echoed == message.count)
    }
}
