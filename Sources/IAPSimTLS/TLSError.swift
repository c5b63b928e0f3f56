import Foundation

/// Every way a TLS connection ends other than an orderly close.
public enum TLSError: Error, Equatable, Sendable {
    /// This side refused the peer's input, sent it `alert`, and closed; `reason` says what was wrong.
    case alertSent(TLSAlert, reason: String)
    /// The peer sent a fatal alert.
    case alertReceived(TLSAlert)
    /// The deadline passed before the handshake, a read or a write was done.
    case timedOut
    /// The transport closed without a close_notify alert (mid-handshake, or a truncated stream).
    case connectionClosed
    /// The transport reported an error.
    case transportFailed
    /// Application data was written before the handshake finished or after the connection closed.
    case notConnected
}

extension TLSError: LocalizedError {
    /// A sentence naming what happened, for a log.
    public var errorDescription: String? {
        switch self {
        case .alertSent(let alert, let reason):
            return "TLS: refused the client's input (sent \(alert)): \(reason)."
        case .alertReceived(let alert):
            return "TLS: the client sent the fatal alert \(alert)."
        case .timedOut:
            return "TLS: the deadline passed before the client finished."
        case .connectionClosed:
            return "TLS: the connection closed without a close_notify alert."
        case .transportFailed:
            return "TLS: the connection failed."
        case .notConnected:
            return "TLS: no application data can be sent before the handshake or after the close."
        }
    }
}

/// A refusal found while reading the peer's bytes: the alert to send and why. The engine
/// turns it into an alert record and a `TLSError.alertSent`.
struct TLSFailure: Error {
    let alert: TLSAlert
    let reason: String

    init(_ alert: TLSAlert, _ reason: String) {
        self.alert = alert
        self.reason = reason
    }
}
