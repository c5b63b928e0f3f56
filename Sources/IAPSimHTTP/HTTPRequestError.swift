import Foundation

/// Why bytes are not a request this server accepts, each with the status to answer. After
/// one of these the connection's framing is unknown: the server answers and closes.
public enum HTTPRequestError: Error, Equatable, Sendable {
    /// Malformed syntax: the request line, a header field, the framing or the target.
    case badRequest(String)
    /// The request line and header fields together exceed the limit (bytes).
    case headerFieldsTooLarge(limit: Int)
    /// The body (declared or received so far) exceeds the limit (bytes).
    case contentTooLarge(limit: Int)
    /// `HTTP/x.y` other than 1.0 and 1.1.
    case unsupportedVersion(String)
    /// A transfer coding other than `chunked`.
    case notImplemented(String)

    /// The status to answer with.
    public var status: HTTPStatus {
        switch self {
        case .badRequest: .badRequest
        case .headerFieldsTooLarge: .requestHeaderFieldsTooLarge
        case .contentTooLarge: .contentTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .notImplemented: .notImplemented
        }
    }
}

extension HTTPRequestError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .badRequest(let reason): "bad request: \(reason)"
        case .headerFieldsTooLarge(let limit): "the request line and header fields exceed \(limit) bytes"
        case .contentTooLarge(let limit): "the request body exceeds \(limit) bytes"
        case .unsupportedVersion(let version): "\(version) is not supported; send HTTP/1.1 or HTTP/1.0"
        case .notImplemented(let coding):
            "transfer coding \"\(coding)\" is not supported; send chunked or Content-Length"
        }
    }
}
