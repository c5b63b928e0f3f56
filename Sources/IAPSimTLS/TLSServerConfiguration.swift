/// How a TLS server presents itself: its certificates by server name, the ALPN protocols it
/// speaks, and its limits. A value, shared by every connection.
public struct TLSServerConfiguration: Sendable {
    /// The identity for the host name a client asks for (SNI, lowercased; nil when it sends
    /// none). Returning nil refuses the handshake: unrecognized_name when a name was sent,
    /// handshake_failure otherwise.
    public var identity: @Sendable (_ serverName: String?) -> TLSIdentity?
    /// The ALPN protocols served, in order of preference. A client that offers ALPN but none
    /// of these gets no_application_protocol; one that offers none gets no ALPN answer.
    public var applicationProtocols: [String]
    /// The largest handshake message accepted (bounded memory: a ClientHello is a few
    /// hundred bytes, so 64 KiB is generous).
    public var maximumHandshakeMessageByteCount: Int
    /// The random source for the server random and the ephemeral keys; tests pass fixed bytes.
    public var randomBytes: @Sendable (Int) -> [UInt8]

    /// A configuration serving `identity` with ALPN `http/1.1`.
    public init(
        applicationProtocols: [String] = ["http/1.1"], maximumHandshakeMessageByteCount: Int = 64 * 1024,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = { TLSServerConfiguration.systemRandomBytes($0) },
        identity: @escaping @Sendable (_ serverName: String?) -> TLSIdentity?
    ) {
        self.applicationProtocols = applicationProtocols
        self.maximumHandshakeMessageByteCount = maximumHandshakeMessageByteCount
        self.randomBytes = randomBytes
        self.identity = identity
    }

    /// `count` bytes from the system's cryptographic random source.
    public static func systemRandomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
