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
        let sendsBody = !headOnly && !status.forbidsBody
        // Written straight into the bytes sent: every answer of a server under load comes here.
        var size = 96 + (sendsBody ? body.count : 0)
        for (name, value) in headers { size += name.utf8.count + value.utf8.count + 4 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        bytes += "HTTP/1.1 \(status.code) ".utf8
        bytes += status.reasonPhrase.utf8
        bytes += "\r\n".utf8
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPRequestParser.isTokenByte),
                !Self.framingFields.contains(where: { HTTPHeaders.sameName($0, name) })
            else { continue }
            bytes += name.utf8
            bytes += ": ".utf8
            // A CR, LF or NUL in a value would end the field or the head early: a space instead.
            for byte in value.utf8 { bytes.append(byte == 0x0D || byte == 0x0A || byte == 0x00 ? 0x20 : byte) }
            bytes += "\r\n".utf8
        }
        if !status.forbidsBody {
            bytes += "Content-Length: ".utf8
            bytes += String(body.count).utf8
            bytes += "\r\n".utf8
        }
        if closing {
            bytes += "Connection: close\r\n".utf8
        } else if keepAliveHeader {
            bytes += "Connection: keep-alive\r\n".utf8
        }
        bytes += "\r\n".utf8
        if sendsBody { bytes += body }
        return bytes
    }

    private static let framingFields = ["Content-Length", "Connection", "Transfer-Encoding"]

}
