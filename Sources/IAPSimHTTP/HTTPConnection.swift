import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One client connection, served on its own thread: requests one after another (keep-alive,
/// pipelined ones in order), each head read within `headTimeout` and each whole request
/// within `requestTimeout` of its first byte, with at most `idleTimeout` between them.
struct HTTPConnection {
    let fd: Int32
    let id: Int
    let configuration: HTTPServer.Configuration
    let registry: ConnectionRegistry
    let handler: HTTPServer.Handler
    let admission: HTTPAdmission.Decider?
    let budget: BufferBudget

    /// How long a closing connection keeps reading (and dropping) after its last response.
    static let drainTime: Duration = .seconds(1)
    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    /// The answer when the server's budget of buffered bytes has no room for a request.
    static let overBudget = HTTPResponse.text(
        "the server holds as many request bytes as it may; try again shortly\n", status: .serviceUnavailable
    ).with(header: "Retry-After", "1")

    func run() {
        defer { registry.close(id) }
        var parser = HTTPRequestParser(limits: configuration.limits, admitsBodies: admission != nil)
        let reservation = BufferBudget.Reservation(budget)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var clock = HTTPDate()
        var first = true
        while true {
            if !parser.hasPartialRequest {
                // A new connection stays `opening` until its first bytes: it is not idle, so it
                // does not go before slow readers when room is made.
                guard first || registry.enter(id, .idle(since: .now)),
                    SocketIO.wait(fd, for: Int32(POLLIN), until: .now + configuration.idleTimeout) == .ready
                else { return }
            }
            first = false
            let start = ContinuousClock.now
            guard registry.enter(id, .reading(since: start)) else { return }
            let requestDeadline = start + configuration.requestTimeout
            let headDeadline = min(start + configuration.headTimeout, requestDeadline)
            var request: HTTPRequest?
            while request == nil {
                let deadline = parser.isReadingHead ? headDeadline : requestDeadline
                do {
                    request = try parser.nextRequest()
                } catch {
                    return finish(with: .error(error), clock: &clock, releasing: reservation)
                }
                if request != nil { break }
                if let head = parser.pendingHead, let admission {
                    switch admission(head) {
                    case .answer(let response):
                        return finish(with: response, clock: &clock, releasing: reservation)
                    case .readBody(let limit):
                        do {
                            try parser.admitBody(limit: limit)
                        } catch {
                            return finish(with: .error(error), clock: &clock, releasing: reservation)
                        }
                    }
                    continue
                }
                // Room for the whole declared body before a byte of it is read.
                guard reservation.grow(to: parser.heldBytes + (parser.remainingDeclaredBodyBytes ?? 0)) else {
                    return finish(with: Self.overBudget, clock: &clock, releasing: reservation)
                }
                if parser.takeContinueRequest(), !SocketIO.send(fd, Self.continueLine, until: deadline) { return }
                switch SocketIO.receive(fd, into: &buffer, until: deadline) {
                case .bytes(let count):
                    parser.append(buffer[0..<count])
                    guard reservation.grow(to: parser.heldBytes) else {
                        return finish(with: Self.overBudget, clock: &clock, releasing: reservation)
                    }
                case .closed:
                    // A client that half-closes mid-request can still read why it failed.
                    guard parser.hasPartialRequest else { return }
                    return finish(
                        with: .text("the request ended before it was complete\n", status: .badRequest), clock: &clock,
                        releasing: reservation)
                case .timedOut:
                    guard parser.hasPartialRequest else { return }
                    return finish(with: .status(.requestTimeout), clock: &clock, releasing: reservation)
                case .failed:
                    return
                }
            }
            guard let request, registry.enter(id, .handling) else { return }
            var response = handler(request)
            // The request's bytes are the handler's no longer: what stays is a pipelined one.
            reservation.releaseAll()
            _ = reservation.grow(to: parser.heldBytes)
            let keepAlive = request.keepAlive && !response.closesConnection && !registry.isStopping
            if !response.headers.contains("Date") { response.headers.add(name: "Date", value: clock.now()) }
            let bytes = response.serialized(
                closing: !keepAlive, keepAliveHeader: keepAlive && request.version == .http10,
                headOnly: request.method == "HEAD")
            guard SocketIO.send(fd, bytes, until: .now + configuration.writeTimeout) else { return }
            if !keepAlive {
                reservation.releaseAll()
                return drain()
            }
        }
    }

    /// Sends a last response (`Connection: close`) and drains the connection for closing,
    /// having given back what the request held of the budget: a drain reads and drops.
    private func finish(
        with response: HTTPResponse, clock: inout HTTPDate, releasing reservation: BufferBudget.Reservation
    ) {
        reservation.releaseAll()
        var response = response
        response.headers.add(name: "Date", value: clock.now())
        guard registry.enter(id, .handling),
            SocketIO.send(fd, response.serialized(closing: true), until: .now + configuration.writeTimeout)
        else { return }
        drain()
    }

    private func drain() {
        guard registry.enter(id, .closing) else { return }
        SocketIO.drainBeforeClose(fd, for: Self.drainTime)
    }
}
