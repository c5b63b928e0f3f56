/// What a handler answers: a status, header fields and a body. The server frames it:
/// `Content-Length` and `Connection` are its own, whatever the handler set.
public struct HTTPResponse: Sendable, Equatable {
    /// The status line's code and phrase.
    public var status: HTTPStatus
    /// The handler's fields; the server adds `Content-Length` and `Connection`.
    public var headers: HTTPHeaders
    /// The body bytes, sent as they are.
    public var body: [UInt8]

    /// A response; by default `200 OK` with no fields and no body.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body, `Content-Type: application/json`.
    public static func json(_ body: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A JSON body from text, `Content-Type: application/json`.
    public static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        json(Array(text.utf8), status: status)
    }

    /// A plain-text body, `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// The status alone, with its reason phrase as a plain-text body (none for 204 and 304).
    public static func status(_ status: HTTPStatus) -> HTTPResponse {
        status.forbidsBody ? HTTPResponse(status: status) : text(status.reasonPhrase + "\n", status: status)
    }

    /// The answer to a request that could not be parsed: its status, and why, in the body.
    public static func error(_ error: HTTPRequestError) -> HTTPResponse {
        text((error.errorDescription ?? error.status.reasonPhrase) + "\n", status: error.status)
    }

    /// Whether the handler asked for the connection to close after this response.
    public var closesConnection: Bool { headers.containsToken("close", in: "Connection") }

    /// The bytes on the wire: an `HTTP/1.1` status line, the handler's fields (minus framing
    /// fields and any with a name that is not a token; CR, LF and NUL in values become
    /// spaces, so no value can start a field of its own), `Content-Length` (except for 1xx,
    /// 204 and 304, RFC 9110 §8.6), `Connection`, then the body.
    /// - Parameters:
    ///   - closing: whether the server closes the connection after it (`Connection: close`).
    ///   - keepAliveHeader: whether to say `Connection: keep-alive`, which HTTP/1.0 clients need.
    ///   - headOnly: the answer to HEAD: every field, no body.
    public func serialized(closing: Bool, keepAliveHeader: Bool = false, headOnly: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPRequestParser.isTokenByte),
                !Self.framingFields.contains(where: { HTTPHeaders.sameName($0, name) })
            else { continue }
            head += name + ": " + Self.cleaned(value) + "\r\n"
        }
        if !status.forbidsBody { head += "Content-Length: \(body.count)\r\n" }
        if closing {
            head += "Connection: close\r\n"
        } else if keepAliveHeader {
            head += "Connection: keep-alive\r\n"
        }
        head += "\r\n"
        let sendsBody = !headOnly && !status.forbidsBody
        var bytes: [UInt8] = []
        bytes.reserveCapacity(head.utf8.count + (sendsBody ? body.count : 0))
        bytes += head.utf8
        if sendsBody { bytes += body }
        return bytes
    }

    private static let framingFields = ["Content-Length", "Connection", "Transfer-Encoding"]

    private static func cleaned(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else { return value }
        return String(decoding: value.utf8.map { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 ? 0x20 : $0 }, as: UTF8.self)
    }
}
