/// A TLS 1.3 server connection over a `TLSTransport`: the engine driven by blocking reads and
/// writes, each bounded by the caller's deadline. It reads and writes like a socket, so an
/// HTTP connection loop can use it in place of one.
///
/// ```swift
/// var tls = TLSServerStream(configuration: configuration, transport: socket)
/// try tls.handshake(until: .now + .seconds(10))
/// let count = try tls.read(into: &buffer, until: deadline)   // 0: the client closed
/// try tls.write(response, until: deadline)
/// tls.close(until: .now + .seconds(1))
/// ```
///
/// Hand-written, for test data only.
public struct TLSServerStream<Transport: TLSTransport> {
    /// The protocol state: negotiation results, closure flags.
    public private(set) var engine: TLSServerEngine
    /// The underlying pipe.
    public var transport: Transport

    private var plaintext: [UInt8] = []
    private var plaintextStart = 0
    private var scratch = [UInt8](repeating: 0, count: 17 * 1024)

    /// A connection whose handshake has not started: the first `handshake` or `read` runs it.
    public init(configuration: TLSServerConfiguration, transport: Transport) {
        engine = TLSServerEngine(configuration: configuration)
        self.transport = transport
    }

    /// Whether decrypted application data waits to be read: a reader need not wait on the
    /// transport for it.
    public var hasBufferedData: Bool { plaintextStart < plaintext.count }

    /// What the handshake settled, once it is complete.
    public var negotiation: TLSNegotiation? { engine.negotiation }

    /// Runs the handshake to completion.
    /// - Throws: `TLSError`: the alert sent or received, `.timedOut` when `deadline` passes
    ///   first, `.connectionClosed` when the client goes away.
    public mutating func handshake(until deadline: ContinuousClock.Instant) throws(TLSError) {
        while !engine.isHandshakeComplete {
            try pump(until: deadline)
        }
    }

    /// Reads decrypted application data into the start of `buffer`, waiting until `deadline`
    /// for some (and running the handshake first if needed).
    /// - Returns: the number of bytes read, at most `buffer.count`; 0 when the client sent
    ///   close_notify.
    /// - Throws: `TLSError`; `.connectionClosed` when the transport closed without close_notify.
    public mutating func read(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) throws(TLSError)
        -> Int
    {
        try handshake(until: deadline)
        while plaintextStart == plaintext.count {
            guard !engine.isPeerClosed else { return 0 }
            try pump(until: deadline)
        }
        let count = min(buffer.count, plaintext.count - plaintextStart)
        buffer.withUnsafeMutableBytes { target in
            plaintext.withUnsafeBytes { source in
                target.baseAddress!.copyMemory(from: source.baseAddress! + plaintextStart, byteCount: count)
            }
        }
        plaintextStart += count
        if plaintextStart == plaintext.count {
            plaintext.removeAll(keepingCapacity: true)
            plaintextStart = 0
        }
        return count
    }

    /// Encrypts and sends all of `bytes`.
    /// - Throws: `TLSError.notConnected` before the handshake or after `close`,
    ///   `.transportFailed` when the client stops reading until `deadline`.
    public mutating func write(_ bytes: some Collection<UInt8>, until deadline: ContinuousClock.Instant)
        throws(TLSError)
    {
        let records = try engine.seal(bytes)
        guard transport.send(records, until: deadline) else { throw .transportFailed }
    }

    /// Sends close_notify (best effort until `deadline`); reading what the client still
    /// sends is the caller's choice.
    public mutating func close(until deadline: ContinuousClock.Instant) {
        let alert = engine.closeNotify()
        if !alert.isEmpty { _ = transport.send(alert, until: deadline) }
    }

    /// One transport read fed to the engine; its output sent, its data kept.
    private mutating func pump(until deadline: ContinuousClock.Instant) throws(TLSError) {
        if engine.isFailed { throw .connectionClosed }
        switch transport.receive(into: &scratch, until: deadline) {
        case .bytes(let count):
            let output = engine.receive(scratch[0..<count])
            if !output.outgoing.isEmpty, !transport.send(output.outgoing, until: deadline) {
                throw output.error ?? .transportFailed
            }
            if plaintextStart == plaintext.count {
                plaintext = output.application
                plaintextStart = 0
            } else {
                plaintext += output.application
            }
            if let error = output.error { throw error }
        case .closed:
            throw .connectionClosed
        case .timedOut:
            throw .timedOut
        case .failed:
            throw .transportFailed
        }
    }
}
