import Foundation
import IAPSimTLS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server on POSIX sockets: a thread per connection, at most
/// `maxConnections` of them, keep-alive, and every wait bounded, so no client (slow, silent,
/// or sending garbage) holds up another.
///
///     let server = try HTTPServer(HTTPServer.Configuration(port: 0)) { request in
///         .json("{\"path\": \"\(request.path)\"}")
///     }
///     print("listening on 127.0.0.1:\(server.port)")
///     server.waitUntilStopped()   // until another thread (a signal handler's) calls stop()
///
/// Room is kept for new clients: when all slots are taken, a new connection takes the slot of
/// a connection that is closing, else of the one idle the longest, else of the one that has
/// been reading its request the longest (a slow client: a good one sends its head at once).
/// Only when every slot is running a handler is it answered `503 Service Unavailable` and
/// closed. A request's head must arrive within `headTimeout` of its first byte, so clients
/// that trickle bytes are cut off early.
public final class HTTPServer: Sendable {
    /// Answers one request; called on the connection's thread, concurrently with others.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Which `CONNECT host:port` requests the server answers itself, over TLS: the TLS
    /// settings for that host, or nil to refuse it (403). The server never opens a
    /// connection onward.
    public typealias TunnelPolicy = @Sendable (_ host: String, _ port: Int) -> TLSServerConfiguration?

    /// Where to listen, and the bounds on clients.
    public struct Configuration: Sendable {
        /// An address or a name; the first of its addresses that can be bound is used.
        public var host: String
        /// Whether addresses other than loopback ones may be listened on. Off by default: a
        /// `host` such as `0.0.0.0` is then refused with `HTTPServerError.notLoopback`.
        public var allowsRemoteClients: Bool
        /// 0 picks a free port: read it from `HTTPServer.port`.
        public var port: UInt16
        /// Connections served at once (a thread each).
        public var maxConnections: Int
        /// From a request's first byte to its last: a client trickling bytes is cut off here
        /// (with 408).
        public var requestTimeout: Duration
        /// From a request's first byte to the end of its head (request line and header fields),
        /// when shorter than `requestTimeout`: a client that holds a slot with a few bytes is
        /// cut off here (with 408). Clients send a head in one piece.
        public var headTimeout: Duration
        /// How long a connection may wait for its next request.
        public var idleTimeout: Duration
        /// How long a response may take to write, for clients that stop reading.
        public var writeTimeout: Duration
        /// How long `stop()` lets handlers that are running finish.
        public var shutdownGrace: Duration
        /// The largest request head and body accepted.
        public var limits: HTTPRequestParser.Limits
        /// The request bytes all connections together may hold (heads and bodies, until
        /// each is answered); past it, 503 with `Retry-After`. 64 MiB unless set; share one
        /// instance between servers to bound them together.
        public var bufferBudget: BufferBudget

        /// A configuration: the loopback address, any free port and the bounds above by default.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 0, maxConnections: Int = 256,
            requestTimeout: Duration = .seconds(10), headTimeout: Duration = .seconds(3),
            idleTimeout: Duration = .seconds(30), writeTimeout: Duration = .seconds(10),
            shutdownGrace: Duration = .seconds(5), limits: HTTPRequestParser.Limits = HTTPRequestParser.Limits(),
            allowsRemoteClients: Bool = false, bufferBudget: BufferBudget = BufferBudget(capacity: 64 << 20)
        ) {
            self.host = host
            self.allowsRemoteClients = allowsRemoteClients
            self.port = port
            self.maxConnections = maxConnections
            self.requestTimeout = requestTimeout
            self.headTimeout = headTimeout
            self.idleTimeout = idleTimeout
            self.writeTimeout = writeTimeout
            self.shutdownGrace = shutdownGrace
            self.limits = limits
            self.bufferBudget = bufferBudget
        }
    }

    /// Where the server listens, and its bounds.
    public let configuration: Configuration
    /// The port listened on: the configured one, or the one the system picked for 0.
    public let port: UInt16

    private let handler: Handler
    private let tunnels: TunnelPolicy?
    private let admission: HTTPAdmission.Decider?
    private let listener: Int32
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let registry: ConnectionRegistry
    private let lifecycle = Lifecycle()

    /// Binds, listens, and starts serving on a thread of its own; returns once the port is
    /// open, so a client may connect right away.
    /// - Parameters:
    ///   - configuration: where to listen and the bounds on clients.
    ///   - tunnels: the `CONNECT` requests to end here in TLS; without it every one is refused.
    ///   - admission: decides from each request's head, before its body is read, whether to
    ///     read it and up to what size, or what to answer at once; nil reads every body up to
    ///     `configuration.limits.maxBodyBytes`.
    ///   - handler: answers each request; runs on the connection's thread, concurrently
    ///     with other connections'.
    /// - Throws: `HTTPServerError` when the address cannot be listened on.
    public init(
        _ configuration: Configuration = Configuration(), tunnels: TunnelPolicy? = nil,
        admission: HTTPAdmission.Decider? = nil, handler: @escaping Handler
    ) throws(HTTPServerError) {
        self.configuration = configuration
        self.handler = handler
        self.tunnels = tunnels
        self.admission = admission
        self.registry = ConnectionRegistry(limit: configuration.maxConnections)
        (listener, port) = try Self.openListener(
            host: configuration.host, port: configuration.port, remote: configuration.allowsRemoteClients)
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let reason = SocketIO.errorText(errno)
            _ = Self.closeDescriptor(listener)
            throw .cannotStart(reason: reason)
        }
        (wakeReader, wakeWriter) = (pipeEnds[0], pipeEnds[1])
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let result = SocketIO.spawnThread { [self] in acceptLoop() }
        guard result == 0 else {
            for fd in [listener, wakeReader, wakeWriter] { _ = Self.closeDescriptor(fd) }
            throw .cannotStart(reason: SocketIO.errorText(result))
        }
    }

    /// How many connections are open now.
    public var openConnections: Int { registry.openCount }

    /// How many connections are mid-request or mid-response (the rest are idle).
    public var busyConnections: Int { registry.busyCount }

    /// Stops listening, closes idle connections, lets running handlers finish and write
    /// their responses (with `Connection: close`) for up to `shutdownGrace`, then closes
    /// the rest. Returns when the port is closed and every connection has ended; calling it
    /// again, from any thread, waits for the same. Call it from outside the handler (from a
    /// handler it would wait out the grace on its own connection). A server that is never
    /// stopped lives as long as the process: its threads hold it.
    public func stop() {
        if lifecycle.beginStopping() {
            registry.beginStopping()
            var byte: UInt8 = 1
            _ = write(wakeWriter, &byte, 1)
            lifecycle.waitForAcceptor()
            if !registry.waitUntilEmpty(until: .now + configuration.shutdownGrace) {
                registry.shutDownAll()
                registry.waitUntilEmpty(until: .now + .seconds(2))
            }
            _ = Self.closeDescriptor(wakeReader)
            _ = Self.closeDescriptor(wakeWriter)
            lifecycle.finishStopping()
        }
        lifecycle.waitUntilStopped()
    }

    /// Blocks until `stop()` has finished, for a main thread with nothing else to do.
    public func waitUntilStopped() { lifecycle.waitUntilStopped() }

    // MARK: Accepting

    /// Connections refused for want of room, answered 503 and drained before closing.
    private struct Refused {
        var fd: Int32
        var deadline: ContinuousClock.Instant
    }

    private static let maxRefusedDraining = 64
    private static let refusal = HTTPResponse.status(.serviceUnavailable).with(header: "Retry-After", "1")
        .serialized(closing: true)

    private func acceptLoop() {
        var refused: [Refused] = []
        var pauseUntil: ContinuousClock.Instant?
        defer {
            for connection in refused { _ = Self.closeDescriptor(connection.fd) }
            _ = Self.closeDescriptor(listener)
            lifecycle.acceptorEnded()
        }
        while !registry.isStopping {
            if let until = pauseUntil, ContinuousClock.now >= until { pauseUntil = nil }
            var pollers = [
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
                pollfd(fd: pauseUntil == nil ? listener : -1, events: Int16(POLLIN), revents: 0),
            ]
            pollers += refused.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let deadlines = refused.map(\.deadline) + (pauseUntil.map { [$0] } ?? [])
            let timeout = deadlines.min().map { SocketIO.milliseconds(until: $0) } ?? -1
            let ready = poll(&pollers, nfds_t(pollers.count), timeout)
            if ready < 0, errno != EINTR { break }
            if registry.isStopping { break }
            let now = ContinuousClock.now
            refused = refused.enumerated().compactMap { offset, connection in
                let readable = pollers[2 + offset].revents != 0
                guard now < connection.deadline, !readable || Self.discardInput(connection.fd) else {
                    Self.closeDescriptor(connection.fd)
                    return nil
                }
                return connection
            }
            if pollers[1].revents != 0, !acceptWaiting(refusing: &refused) {
                // Out of descriptors: let connections end before trying again, or this
                // loop would spin on a listener that stays readable.
                pauseUntil = .now + .milliseconds(100)
            }
        }
    }

    /// Accepts the connections waiting (a bounded batch); false when descriptors ran out.
    private func acceptWaiting(refusing refused: inout [Refused]) -> Bool {
        for _ in 0..<64 {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                switch errno {
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return false
                default: return true  // EAGAIN (none left), or one that reset while queued
                }
            }
            SocketIO.configure(accepted: fd)
            switch registry.admit(fd) {
            case .admitted(let id):
                let result = SocketIO.spawnThread { [self] in
                    HTTPConnection(
                        fd: fd, id: id, configuration: configuration, registry: registry, handler: handler,
                        tunnels: tunnels, admission: admission, budget: configuration.bufferBudget
                    ).run()
                }
                if result != 0 { registry.close(id) }
            case .full:
                refuse(fd, into: &refused)
            case .stopping:
                _ = Self.closeDescriptor(fd)
            }
        }
        return true
    }

    /// Answers 503 without waiting, then drains the connection a second at most (from this
    /// thread's poll) so the answer is not lost to a reset.
    private func refuse(_ fd: Int32, into refused: inout [Refused]) {
        let deadline = ContinuousClock.now  // never wait here: this is the accepting thread
        _ = SocketIO.send(fd, Self.refusal, until: deadline)
        _ = shutdown(fd, Int32(SHUT_WR))
        if refused.count < Self.maxRefusedDraining {
            refused.append(Refused(fd: fd, deadline: .now + .seconds(1)))
        } else {
            _ = Self.closeDescriptor(fd)
        }
    }

    /// Reads and drops what is waiting; false at the end of input or on an error.
    private static func discardInput(_ fd: Int32) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 || (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    }

    @discardableResult
    static func closeDescriptor(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(fd)
        #else
            Darwin.close(fd)
        #endif
    }
}

extension HTTPResponse {
    /// A copy with one more header field.
    func with(header name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.headers.add(name: name, value: value)
        return copy
    }
}
