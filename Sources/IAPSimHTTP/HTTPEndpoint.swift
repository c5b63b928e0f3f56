/// A plain `http://host[:port]/path` URL to POST to.
public struct HTTPEndpoint: Sendable, Equatable {
    /// A name or an address (an IPv6 one without its brackets).
    public var host: String
    /// The port: 80 unless the URL gives one.
    public var port: UInt16
    /// The path and query, `/` at the least.
    public var path: String

    /// Why a URL cannot be used.
    public enum Failure: Error, Equatable, Sendable {
        /// A scheme other than http (the text before the first `:`).
        case unsupportedScheme(String)
        /// An https URL, which needs TLS.
        case https
        /// No host, a bad port, or a character a URL cannot hold: the detail says which.
        case malformed(String)
    }

    /// Parses `text`. `https://` is refused: iapsim takes no packages and its static build
    /// has no TLS library, so it speaks plain HTTP only (point it at a local endpoint, or a
    /// local proxy in front of a remote one).
    public init(_ text: String) throws(Failure) {
        let lower = text.lowercased()
        if lower.hasPrefix("https://") { throw .https }
        guard lower.hasPrefix("http://") else {
            throw .unsupportedScheme(String(text.prefix { $0 != ":" }))
        }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest.dropFirst(authority.count))
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        if path.isEmpty || path.first == "?" { path = "/" + path }
        guard !authority.isEmpty, !authority.contains("@") else { throw .malformed("no host in \(text)") }
        var host = String(authority)
        var port: UInt16 = 80
        if host.hasPrefix("[") {  // [::1]:8080
            guard let close = host.firstIndex(of: "]") else { throw .malformed("unclosed [ in \(text)") }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = UInt16(after.dropFirst()), number > 0 else {
                    throw .malformed("bad port in \(text)")
                }
                port = number
            } else if !after.isEmpty {
                throw .malformed("bad host in \(text)")
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = UInt16(host[host.index(after: colon)...]), number > 0 else {
                throw .malformed("bad port in \(text)")
            }
            port = number
            host = String(host[..<colon])
        }
        guard !host.isEmpty, path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .malformed("bad host or path in \(text)")
        }
        // A name or an IPv4 address: RFC 3986's reg-name characters, no colon left (`h:1:2`
        // would connect to `h:1`, a host no resolver gives the same meaning twice), nor
        // percent-encoding, which no resolver reads. An IPv6 address came in brackets.
        if !authority.hasPrefix("[") {
            guard
                host.utf8.allSatisfy({ byte in
                    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                        || "-._~".utf8.contains(byte)
                })
            else { throw .malformed("bad host in \(text): a name or an address, an IPv6 one in brackets") }
        }
        self.host = host
        self.port = port
        self.path = path
    }
}

extension HTTPEndpoint.Failure {
    /// What was wrong with the URL, for the user to read.
    public var message: String {
        switch self {
        case .https:
            "https is not supported: iapsim's static build has no TLS library (no packages); forward to a plain http:// URL, e.g. a local endpoint or proxy"
        case .unsupportedScheme(let scheme): "\(scheme): only http:// URLs are supported"
        case .malformed(let detail): detail
        }
    }
}
