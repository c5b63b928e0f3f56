import Foundation
import IAPSimTLS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One client connection, served on its own thread: requests one after another (keep-alive,
/// pipelined ones in order), each head read within `headTimeout` and each whole request
/// within `requestTimeout` of its first byte, with at most `idleTimeout` between them.
///
/// A `CONNECT host:port` the server's tunnel policy accepts turns the connection into a TLS
/// one the server itself ends (it never opens a connection onward): `200 Connection
/// Established`, the TLS handshake, then requests as before, each marked with the host the
/// client asked for (`HTTPRequest.tunnelHost`). A `CONNECT` it does not accept gets 403.
struct HTTPConnection {
    let fd: Int32
    let id: Int
    let configuration: HTTPServer.Configuration
    let registry: ConnectionRegistry
    let handler: HTTPServer.Handler
    let tunnels: HTTPServer.TunnelPolicy?
    let admission: HTTPAdmission.Decider?
    let budget: BufferBudget

    /// How long a closing connection keeps reading (and dropping) after its last response.
    static let drainTime: Duration = .seconds(1)
    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    private static let established = Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)
    /// The answer when the server's budget of buffered bytes has no room for a request.
    static let overBudget = HTTPResponse.text(
        "the server holds as many request bytes as it may; try again shortly\n", status: .serviceUnavailable
    ).with(header: "Retry-After", "1")

    func run() {
        defer { registry.close(id) }
        var plain = PlainConnectionIO(fd: fd)
        guard let tunnel = serve(&plain, tunnelHost: nil) else { return }
        // CONNECT accepted: the rest of the connection is TLS, with this server as its end.
        guard SocketIO.send(fd, Self.established, until: .now + configuration.writeTimeout) else { return }
        var tls = TLSConnectionIO(
            fd: fd,
            stream: TLSServerStream(
                configuration: tunnel.configuration, transport: SocketTransport(fd: fd, pending: tunnel.pending)))
        do {
            try tls.stream.handshake(until: .now + configuration.requestTimeout)
        } catch {
            return  // the alert, if any, is sent: nothing more to say in plain text
        }
        _ = serve(&tls, tunnelHost: tunnel.host)
    }

    /// What a `CONNECT` turned into: the tunnel's TLS settings, its host, and the bytes the
    /// client sent after the request (the start of its handshake).
    struct AcceptedTunnel {
        var configuration: TLSServerConfiguration
        var host: String
        var pending: [UInt8]
    }

    /// Serves requests over `io` until the connection ends, or until a `CONNECT` the policy
    /// accepts (on a plain connection), which it returns.
    private func serve<IO: ConnectionIO>(_ io: inout IO, tunnelHost: String?) -> AcceptedTunnel? {
        var parser = HTTPRequestParser(limits: configuration.limits, admitsBodies: admission != nil)
        let reservation = BufferBudget.Reservation(budget)
        defer { reservation.releaseAll() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var clock = HTTPDate()
        var first = tunnelHost == nil
        while true {
            if !parser.hasPartialRequest {
                // A new connection stays `opening` until its first bytes: it is not idle, so it
                // does not go before slow readers when room is made.
                guard first || registry.enter(id, .idle(since: .now)),
                    io.waitForInput(until: .now + configuration.idleTimeout) == .ready
                else { return nil }
            }
            first = false
            let start = ContinuousClock.now
            guard registry.enter(id, .reading(since: start)) else { return nil }
            let requestDeadline = start + configuration.requestTimeout
            let headDeadline = min(start + configuration.headTimeout, requestDeadline)
            var request: HTTPRequest?
            while request == nil {
                let deadline = parser.isReadingHead ? headDeadline : requestDeadline
                do {
                    request = try parser.nextRequest()
                } catch {
                    finish(&io, with: .error(error), clock: &clock, releasing: reservation)
                    return nil
                }
                if request != nil { break }
                if var head = parser.pendingHead, let admission {
                    head.tunnelHost = tunnelHost
                    switch admission(head) {
                    case .answer(let response):
                        finish(&io, with: response, clock: &clock, releasing: reservation)
                        return nil
                    case .readBody(let limit):
                        do {
                            try parser.admitBody(limit: limit)
                        } catch {
                            finish(&io, with: .error(error), clock: &clock, releasing: reservation)
                            return nil
                        }
                    }
                    continue
                }
                // Room for the whole declared body before a byte of it is read.
                guard reservation.grow(to: parser.heldBytes + (parser.remainingDeclaredBodyBytes ?? 0)) else {
                    finish(&io, with: Self.overBudget, clock: &clock, releasing: reservation)
                    return nil
                }
                if parser.takeContinueRequest(), !io.send(Self.continueLine, until: deadline) { return nil }
                switch io.receive(into: &buffer, until: deadline) {
                case .bytes(let count):
                    parser.append(buffer[0..<count])
                    guard reservation.grow(to: parser.heldBytes) else {
                        finish(&io, with: Self.overBudget, clock: &clock, releasing: reservation)
                        return nil
                    }
                case .closed:
                    // A client that half-closes mid-request can still read why it failed.
                    guard parser.hasPartialRequest else { return nil }
                    finish(
                        &io, with: .text("the request ended before it was complete\n", status: .badRequest),
                        clock: &clock, releasing: reservation)
                    return nil
                case .timedOut:
                    guard parser.hasPartialRequest else { return nil }
                    finish(&io, with: .status(.requestTimeout), clock: &clock, releasing: reservation)
                    return nil
                case .failed:
                    return nil
                }
            }
            guard var request, registry.enter(id, .handling) else { return nil }
            if request.method == "CONNECT" {
                guard tunnelHost == nil, let tunnels, let authority = Authority(connectTarget: request.path),
                    let tunnel = tunnels(authority.host, authority.port)
                else {
                    finish(
                        &io, with: .text("this server opens no tunnel to \(request.path)\n", status: .forbidden),
                        clock: &clock, releasing: reservation)
                    return nil
                }
                return AcceptedTunnel(configuration: tunnel, host: authority.host, pending: parser.takeUnparsedBytes())
            }
            request.tunnelHost = tunnelHost
            var response = handler(request)
            // The request's bytes are the handler's no longer: what stays is a pipelined one.
            reservation.releaseAll()
            _ = reservation.grow(to: parser.heldBytes)
            let keepAlive = request.keepAlive && !response.closesConnection && !registry.isStopping
            if !response.headers.contains("Date") { response.headers.add(name: "Date", value: clock.now()) }
            let bytes = response.serialized(
                closing: !keepAlive, keepAliveHeader: keepAlive && request.version == .http10,
                headOnly: request.method == "HEAD")
            guard io.send(bytes, until: .now + configuration.writeTimeout) else { return nil }
            if !keepAlive {
                reservation.releaseAll()
                drain(&io)
                return nil
            }
        }
    }

    /// Sends a last response (`Connection: close`) and drains the connection for closing,
    /// having given back what the request held of the budget: a drain reads and drops.
    private func finish<IO: ConnectionIO>(
        _ io: inout IO, with response: HTTPResponse, clock: inout HTTPDate,
        releasing reservation: BufferBudget.Reservation
    ) {
        reservation.releaseAll()
        var response = response
        response.headers.add(name: "Date", value: clock.now())
        guard registry.enter(id, .handling),
            io.send(response.serialized(closing: true), until: .now + configuration.writeTimeout)
        else { return }
        drain(&io)
    }

    private func drain<IO: ConnectionIO>(_ io: inout IO) {
        guard registry.enter(id, .closing) else { return }
        io.drainBeforeClose(for: Self.drainTime)
    }
}
