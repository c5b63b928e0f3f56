/// What a server does with a request whose head has arrived, decided before its body is read
/// (`HTTPServer.init(_:admission:handler:)`): read the body up to a limit chosen for this
/// request, or answer now — a wrong `Host`, a missing credential — without reading it, and
/// close the connection (the body's bytes are never buffered).
public enum HTTPAdmission: Sendable, Equatable {
    /// Read the body, refusing one longer than `limit` bytes with 413 (never more than the
    /// server's `limits.maxBodyBytes`).
    case readBody(limit: Int)
    /// Answer this without reading the body; the connection then closes.
    case answer(HTTPResponse)

    /// Decides from a request's head: the request passed has an empty body.
    public typealias Decider = @Sendable (HTTPRequest) -> HTTPAdmission
}
