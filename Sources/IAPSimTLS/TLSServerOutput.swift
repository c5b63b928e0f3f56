/// What one call into `TLSServerEngine` produced: bytes to send to the client, application
/// bytes the client sent, what happened, and the error that ended the connection, if any.
///
/// The caller sends `outgoing` first, even when `error` is set: it then holds the alert that
/// tells the client why.
public struct TLSServerOutput: Sendable {
    /// Records to write to the client, in order.
    public var outgoing: [UInt8] = []
    /// Decrypted application data, in order.
    public var application: [UInt8] = []
    /// Handshake completion, the client's close_notify, key updates.
    public var events: [TLSEvent] = []
    /// Set when the connection failed: this side sent an alert, or the client did.
    public var error: TLSError?

    /// Nothing yet.
    public init() {}
}

/// Something that happened on a connection, reported by the engine.
public enum TLSEvent: Equatable, Sendable {
    /// The client's Finished verified: application data may flow both ways.
    case handshakeCompleted(TLSNegotiation)
    /// The client sent close_notify: it will send nothing more (this side may still write).
    case peerClosed
    /// The client updated its keys; `requested` when it asked for this side's update too,
    /// which the engine has answered.
    case keyUpdated(requested: Bool)
}

/// What the handshake settled.
public struct TLSNegotiation: Equatable, Sendable {
    /// The host name the client asked for (SNI), lowercased.
    public let serverName: String?
    /// The ALPN protocol chosen, such as "http/1.1"; nil when the client offered none.
    public let applicationProtocol: String?
    /// The key-exchange group.
    public let group: TLSNamedGroup
    /// Whether a HelloRetryRequest was needed to get a share in that group.
    public let usedHelloRetryRequest: Bool
}
