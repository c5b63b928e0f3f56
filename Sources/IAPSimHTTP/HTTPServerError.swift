import Foundation

/// Why the server could not start.
public enum HTTPServerError: Error, Equatable, Sendable {
    /// The host is neither an address nor a name that resolves.
    case cannotResolve(host: String, reason: String)
    /// No address of the host could be bound and listened on (in use, not local, …).
    case cannotListen(host: String, port: UInt16, reason: String)
    /// The system refused a thread or a descriptor for the server itself.
    case cannotStart(reason: String)
    /// The host is not a loopback address, or resolves to none, and remote clients were not
    /// allowed (`Configuration.allowsRemoteClients`).
    case notLoopback(host: String)
}

extension HTTPServerError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .cannotResolve(let host, let reason):
            "cannot listen on \(host): \(reason); give an address such as 127.0.0.1"
        case .cannotListen(let host, let port, let reason):
            "cannot listen on \(host):\(port): \(reason); pick another port, or 0 for any free one"
        case .cannotStart(let reason):
            "cannot start the server: \(reason)"
        case .notLoopback(let host):
            "\(host) is not a loopback address: other machines could reach the server; listen on 127.0.0.1"
        }
    }
}
