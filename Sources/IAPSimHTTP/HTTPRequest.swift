/// The HTTP versions the server speaks.
public enum HTTPVersion: String, Sendable, Equatable {
    case http10 = "HTTP/1.0"
    case http11 = "HTTP/1.1"
}

/// One parsed request: what a handler of `HTTPServer` receives. `HTTPRequestParser` makes
/// them from bytes; tests of routes make them with `init(method:target:…)`.
public struct HTTPRequest: Sendable {
    /// The method as sent (methods are case-sensitive: `GET`, `POST`, …).
    public var method: String
    /// The request target as sent, e.g. `/inApps/v1/history/2000000001?sort=DESCENDING`.
    public var target: String
    /// The percent-decoded path, e.g. `/inApps/v1/history/2000000001`. An encoded `/`
    /// (`%2F`) decodes to `/` here: route on `pathComponents`.
    public var path: String
    /// The path's segments, each percent-decoded on its own (so `a%2Fb` stays one segment),
    /// with empty, `.` and `..` segments resolved: `/a//b/../c/` gives `["a", "c"]`.
    public var pathComponents: [String]
    /// The query's parameters in order, repeated names kept (`productId=a&productId=b`),
    /// percent-decoded with `+` as a space; a name without `=` has the value "".
    public var query: [(name: String, value: String)]
    /// The version from the request line.
    public var version: HTTPVersion
    /// The header fields in the order they came.
    public var headers: HTTPHeaders
    /// The body, whether it came with `Content-Length` or chunked.
    public var body: [UInt8]
    /// For a request that came through a `CONNECT` tunnel the server speaks TLS in: the host
    /// the client asked to reach (`api.storekit.itunes.apple.com`), lowercased, without port.
    /// Nil on a plain connection.
    public var tunnelHost: String?
    /// For an absolute-form target (`POST http://ocsp.example.test/ HTTP/1.1`, as a client
    /// sends to the server it uses as its HTTP proxy): the URL's host, lowercased, and port
    /// (80 for http, 443 for https when the URL names none). Nil for an origin-form target.
    public var absoluteAuthority: Authority?

    /// A request as the parser would produce it from `method target version`.
    /// - Throws: `HTTPRequestError.badRequest` when the target is malformed.
    public init(
        method: String = "GET", target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = [:],
        body: [UInt8] = []
    ) throws(HTTPRequestError) {
        let parsed = try RequestTarget(Array(target.utf8)[...], method: method)
        self.init(method: method, target: target, parsed: parsed, version: version, headers: headers, body: body)
    }

    init(
        method: String, target: String, parsed: RequestTarget, version: HTTPVersion, headers: HTTPHeaders, body: [UInt8]
    ) {
        self.method = method
        self.target = target
        self.path = parsed.path
        self.pathComponents = parsed.pathComponents
        self.query = parsed.query
        self.absoluteAuthority = parsed.absoluteAuthority
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The first value of the query parameter `name` (compared exactly), or nil.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Every value of the query parameter `name`, in order.
    public func queryValues(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }

    /// Whether the client lets the connection stay open after the response: HTTP/1.1 unless
    /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        switch version {
        case .http11: !headers.containsToken("close", in: "Connection")
        case .http10: headers.containsToken("keep-alive", in: "Connection")
        }
    }
}

/// The request target split and decoded (RFC 9112 §3.2): origin form (`/path?query`),
/// absolute form (`http://host/path?query`, whose authority is kept apart) and `*` for OPTIONS.
struct RequestTarget: Sendable {
    var path: String
    var pathComponents: [String]
    var query: [(name: String, value: String)]
    var absoluteAuthority: Authority?

    init(_ bytes: ArraySlice<UInt8>, method: String) throws(HTTPRequestError) {
        guard !bytes.isEmpty else { throw .badRequest("empty request target") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !bytes.contains(UInt8(ascii: "#")) else {
            throw .badRequest("the request target has a character a URL cannot hold")
        }
        if bytes.elementsEqual("*".utf8) {
            guard method == "OPTIONS" else { throw .badRequest("* is a target for OPTIONS only") }
            (path, pathComponents, query) = ("*", [], [])
            return
        }
        if method == "CONNECT" {
            // The authority form, `host:port` (RFC 9110 §9.3.6), and nothing else.
            guard let authority = Authority(bytes) else {
                throw .badRequest("a CONNECT target is host:port")
            }
            (path, pathComponents, query) = (authority.host + ":" + String(authority.port), [], [])
            return
        }
        var rest = bytes
        if bytes.first != UInt8(ascii: "/") {
            (absoluteAuthority, rest) = try Self.splittingSchemeAndAuthority(bytes)
        }
        let questionMark = rest.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = rest[..<(questionMark ?? rest.endIndex)]
        path = try Self.decodePathPart(rawPath.isEmpty ? Array("/".utf8)[...] : rawPath)
        pathComponents = try Self.components(rawPath)
        if let questionMark {
            query = try Self.parameters(rest[(questionMark + 1)...])
        } else {
            query = []
        }
    }

    /// `http://host:port/path?q` → the authority and `/path?q` (or `?q` when there is no path).
    private static func splittingSchemeAndAuthority(
        _ bytes: ArraySlice<UInt8>
    ) throws(HTTPRequestError) -> (Authority, ArraySlice<UInt8>) {
        let lowered = bytes.prefix(8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        let scheme: Int
        if lowered.starts(with: "http://".utf8) {
            scheme = 7
        } else if lowered.starts(with: "https://".utf8) {
            scheme = 8
        } else {
            throw .badRequest("the request target is neither a path nor an http URL")
        }
        let afterScheme = bytes.dropFirst(scheme)
        let authorityEnd = afterScheme.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
        guard authorityEnd != afterScheme.startIndex else { throw .badRequest("the request URL has no host") }
        var authority = afterScheme[..<(authorityEnd ?? bytes.endIndex)]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        let defaultPort = scheme == 7 ? 80 : 443
        // `host` alone, or `[v6]` alone, takes the scheme's port.
        let hasPort =
            authority.first == UInt8(ascii: "[")
            ? authority.split(separator: UInt8(ascii: "]"), omittingEmptySubsequences: false).last?.first
                == UInt8(ascii: ":")
            : authority.contains(UInt8(ascii: ":"))
        let parsed = hasPort ? Authority(authority) : Authority(Array(authority) + Array(":\(defaultPort)".utf8))
        guard let parsed else { throw .badRequest("the request URL's host or port is malformed") }
        return (parsed, bytes[(authorityEnd ?? bytes.endIndex)...])
    }

    private static func decodePathPart(_ raw: ArraySlice<UInt8>) throws(HTTPRequestError) -> String {
        guard let bytes = PercentDecoding.decode(raw, plusAsSpace: false) else {
            throw .badRequest("the path has a % not followed by two hexadecimal digits")
        }
        // A decoded NUL or other control character has no business in a path: it only
        // serves to confuse whatever the path is handed to.
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw .badRequest("the path encodes a control character")
        }
        guard let string = PercentDecoding.string(bytes) else { throw .badRequest("the path is not UTF-8") }
        return string
    }

    private static func components(_ raw: ArraySlice<UInt8>) throws(HTTPRequestError) -> [String] {
        var components: [String] = []
        for segment in raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            let decoded = try decodePathPart(segment)
            switch decoded {
            case ".": continue
            case "..": _ = components.popLast()  // never above the root
            default: components.append(decoded)
            }
        }
        return components
    }

    private static func parameters(_ raw: ArraySlice<UInt8>) throws(HTTPRequestError) -> [(name: String, value: String)]
    {
        var parameters: [(name: String, value: String)] = []
        for pair in raw.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = try decodeQueryPart(pair[..<(equals ?? pair.endIndex)])
            var value = ""
            if let equals { value = try decodeQueryPart(pair[(equals + 1)...]) }
            parameters.append((name: name, value: value))
        }
        return parameters
    }

    private static func decodeQueryPart(_ raw: ArraySlice<UInt8>) throws(HTTPRequestError) -> String {
        guard let bytes = PercentDecoding.decode(raw, plusAsSpace: true) else {
            throw .badRequest("the query has a % not followed by two hexadecimal digits")
        }
        guard let string = PercentDecoding.string(bytes) else { throw .badRequest("the query is not UTF-8") }
        return string
    }
}

/// `host:port` of a `CONNECT` request: a name or an address, lowercased, and a port 1…65535.
public struct Authority: Sendable, Equatable {
    public var host: String
    public var port: Int

    init?(_ bytes: some Collection<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let digits = text[text.index(after: colon)...]
        guard !host.isEmpty, host.count <= 253, !digits.isEmpty, digits.count <= 5, digits.allSatisfy(\.isASCII),
            let port = Int(digits), (1...65535).contains(port),
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":") })
        else { return nil }
        (self.host, self.port) = (host, port)
    }

    /// The authority of a `CONNECT` request's target (`path` holds it), or nil.
    public init?(connectTarget: String) { self.init(Array(connectTarget.utf8)) }
}
