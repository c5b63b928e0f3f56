/// A TLS alert description (RFC 8446 §6). A struct rather than an enum so that any code a
/// peer sends can be carried and reported, not only the ones named here.
public struct TLSAlert: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The description byte on the wire.
    public let rawValue: UInt8

    /// Wraps a description byte.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The sender will send nothing more (not an error).
    public static let closeNotify = TLSAlert(rawValue: 0)
    /// A message arrived that the state does not allow.
    public static let unexpectedMessage = TLSAlert(rawValue: 10)
    /// A record failed to decrypt or authenticate.
    public static let badRecordMAC = TLSAlert(rawValue: 20)
    /// A record was longer than the protocol allows.
    public static let recordOverflow = TLSAlert(rawValue: 22)
    /// No acceptable set of parameters could be agreed.
    public static let handshakeFailure = TLSAlert(rawValue: 40)
    /// A certificate was corrupt or did not verify.
    public static let badCertificate = TLSAlert(rawValue: 42)
    /// A field was well formed but out of range or inconsistent.
    public static let illegalParameter = TLSAlert(rawValue: 47)
    /// A message could not be parsed: a length was wrong or a field ran past its end.
    public static let decodeError = TLSAlert(rawValue: 50)
    /// A handshake cryptographic check failed, such as a Finished message.
    public static let decryptError = TLSAlert(rawValue: 51)
    /// The peer offers no protocol version this side speaks.
    public static let protocolVersion = TLSAlert(rawValue: 70)
    /// A local failure unrelated to the peer.
    public static let internalError = TLSAlert(rawValue: 80)
    /// The user cancelled the handshake (a warning, followed by close_notify).
    public static let userCanceled = TLSAlert(rawValue: 90)
    /// A mandatory extension was not sent.
    public static let missingExtension = TLSAlert(rawValue: 109)
    /// No certificate exists for the server name the client asked for.
    public static let unrecognizedName = TLSAlert(rawValue: 112)
    /// None of the client's ALPN protocols is served here.
    public static let noApplicationProtocol = TLSAlert(rawValue: 120)

    private static let names: [UInt8: String] = [
        0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 22: "record_overflow",
        40: "handshake_failure", 42: "bad_certificate", 47: "illegal_parameter", 50: "decode_error",
        51: "decrypt_error", 70: "protocol_version", 80: "internal_error", 90: "user_canceled",
        109: "missing_extension", 112: "unrecognized_name", 120: "no_application_protocol",
    ]

    /// RFC 8446's name for the alert, such as "protocol_version", or its number.
    public var description: String { Self.names[rawValue] ?? "alert \(rawValue)" }
}
