/// The byte pipe a `TLSServerStream` runs over: a connected socket, in practice, read and
/// written with deadlines. IAPSimHTTP's `SocketIO.receive` and `SocketIO.send` have exactly
/// these shapes, so an adapter is a few lines there; this target knows no sockets.
public protocol TLSTransport {
    /// Reads what has arrived (up to `buffer.count` bytes) into the start of `buffer`,
    /// waiting for some until `deadline`.
    mutating func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) -> TLSTransportReceived
    /// Writes all of `bytes`; false when the peer is gone or stops reading until `deadline`.
    mutating func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool
}

/// What one `TLSTransport.receive` call got.
public enum TLSTransportReceived: Equatable, Sendable {
    /// This many bytes, at the start of the buffer.
    case bytes(Int)
    /// The peer closed its side.
    case closed
    /// Nothing arrived before the deadline.
    case timedOut
    /// The transport failed.
    case failed
}
