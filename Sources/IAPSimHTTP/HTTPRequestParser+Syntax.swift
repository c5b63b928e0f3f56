import Foundation

/// What the parser accepts: its size limits, and the syntax of a request head's lines, its
/// version and its fields (RFC 9110 §5, RFC 9112 §2–§3).
extension HTTPRequestParser {
    /// Sizes beyond which a request is refused.
    public struct Limits: Sendable, Equatable {
        /// The request line and header fields, line ends and any empty lines before the
        /// request line included (and, separately, the trailer section of a chunked body).
        /// Beyond it: 431.
        public var maxHeadBytes: Int
        /// The body, declared or decoded. Beyond it: 413.
        public var maxBodyBytes: Int

        /// Limits, each clamped to 0 or more (and the body to 1 TiB).
        public init(maxHeadBytes: Int = 16 * 1024, maxBodyBytes: Int = 1 << 20) {
            self.maxHeadBytes = max(0, maxHeadBytes)
            self.maxBodyBytes = max(0, min(maxBodyBytes, 1 << 40))
        }
    }

    /// Lines of `bytes` (each ending in LF, CR LF stripped); a CR anywhere else is refused.
    static func lines(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        // What follows the last LF is not a line (the head ends in an empty one).
        while let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = bytes[start..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard !line.contains(UInt8(ascii: "\r")) else { throw .badRequest("a bare CR in the request head") }
            lines.append(line)
            start = end + 1
        }
        return lines
    }

    static func version(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> HTTPVersion {
        if bytes.elementsEqual("HTTP/1.1".utf8) { return .http11 }
        if bytes.elementsEqual("HTTP/1.0".utf8) { return .http10 }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let version = Array(bytes)
        if version.count == 8, version.starts(with: "HTTP/".utf8), isDigit(version[5]), version[6] == UInt8(ascii: "."),
            isDigit(version[7])
        {
            throw .unsupportedVersion(String(decoding: version, as: UTF8.self))
        }
        throw .badRequest("the request line does not end in HTTP/1.1")
    }

    /// `name: value` (RFC 9110 §5): a token name right before the colon, optional whitespace
    /// around a value of visible characters, spaces and tabs.
    static func field(_ line: ArraySlice<UInt8>) throws(HTTPRequestError) -> (name: String, value: String) {
        if line.first == 0x20 || line.first == 0x09 {
            throw .badRequest("a header line starts with whitespace (obsolete line folding)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
            throw .badRequest("a header line has no name and colon")
        }
        let name = line[..<colon]
        guard name.allSatisfy(isTokenByte) else { throw .badRequest("a header name is not a token") }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw .badRequest("a header value holds a control character")
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// tchar of RFC 9110 §5.6.2.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> Head {
        let lines = try Self.lines(bytes)
        guard let requestLine = lines.first else { throw .badRequest("no request line") }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .badRequest("the request line is not METHOD SP TARGET SP VERSION") }
        let version = try Self.version(parts[2])
        guard !parts[0].isEmpty, parts[0].allSatisfy(Self.isTokenByte) else {
            throw .badRequest("the method is not a token")
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let parsedTarget = try RequestTarget(parts[1], method: method)
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let field = try Self.field(line)
            headers.add(name: field.name, value: field.value)
        }
        return Head(
            method: method, target: String(decoding: parts[1], as: UTF8.self), parsedTarget: parsedTarget,
            version: version, headers: headers)
    }

    /// RFC 9112 §3.2: exactly one `Host` in HTTP/1.1, at most one in HTTP/1.0.
    static func checkHost(_ head: Head) throws(HTTPRequestError) {
        let hosts = head.headers.values(for: "Host").count
        if hosts > 1 || (head.version == .http11 && hosts == 0) {
            throw .badRequest("an HTTP/1.1 request needs exactly one Host header")
        }
    }
}
