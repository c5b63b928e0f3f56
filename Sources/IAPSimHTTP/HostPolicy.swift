/// The `Host` values that name a server, checked before anything else of a request is read:
/// a page of another site whose name an attacker rebinds to 127.0.0.1 (DNS rebinding) reaches
/// a loopback server, but its requests carry the attacker's name in `Host`, which is refused
/// (`421 Misdirected Request`). Address literals are safe to allow: no name is rebound to them.
public struct HostPolicy: Sendable, Equatable {
    /// The accepted `host:port` values, lowercase (IPv6 addresses in brackets).
    public let allowed: Set<String>
    /// `127.0.0.1:PORT`: the address to name in a refusal.
    public let primary: String
    /// Whether every `Host` is accepted: for a server listening on a wildcard address for
    /// other machines, whose clients name it as they reach it, and whom rebinding gives
    /// nothing they could not do directly.
    public let acceptsAny: Bool

    /// The loopback names of a server on `port` — `127.0.0.1`, `localhost` and `[::1]` —
    /// and `extraHosts`, each with the port (and without it too when the port is 80, the
    /// default a client leaves out).
    public init(port: UInt16, extraHosts: [String] = [], acceptsAny: Bool = false) {
        self.acceptsAny = acceptsAny
        var allowed: Set<String> = []
        for host in ["127.0.0.1", "localhost", "::1"] + extraHosts {
            let name = host.lowercased()
            let authority = name.contains(":") && !name.hasPrefix("[") ? "[\(name)]" : name
            allowed.insert("\(authority):\(port)")
            if port == 80 { allowed.insert(authority) }
        }
        self.allowed = allowed
        self.primary = "127.0.0.1:\(port)"
    }

    /// Whether a request with this `Host` value (nil when it has none) names the server.
    public func allows(_ host: String?) -> Bool {
        guard let host else { return false }
        if acceptsAny { return true }
        return allowed.contains(host.lowercased())
    }
}
