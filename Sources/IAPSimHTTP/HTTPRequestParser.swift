/// An incremental HTTP/1.1 request parser (RFC 9112): feed it bytes as they arrive with
/// `append(_:)`, take requests with `nextRequest()`. It frames bodies by `Content-Length` or
/// the chunked transfer coding, keeps bytes past a request for the next one (pipelining),
/// and on no input traps: whatever it cannot accept it throws as an `HTTPRequestError`
/// carrying the status to answer, after which the connection must be closed.
///
/// Every byte is looked at once while a request's head is incomplete, so a client sending a
/// byte at a time costs linear work; nothing is buffered past the limits. Every part of a
/// request is bounded, the bytes before it included: the empty lines a client may send before
/// a request line count toward the head, a chunked body's framing (the size digits and the
/// extensions) has bounds of its own, and the bytes already parsed are dropped as the body
/// arrives, so a connection holds at most the body and one read beyond it.
public struct HTTPRequestParser: Sendable {
    /// A chunk-size line longer than this, extensions included, is refused.
    static let maxChunkLineBytes = 1024
    /// The hexadecimal digits of one chunk size, leading zeros included; more is refused (400).
    static let maxChunkSizeDigits = 16
    /// The chunk extensions of one request together, in bytes; more is refused (400). Nothing
    /// here reads them, and without a bound each one-byte chunk could carry a kilobyte.
    static let maxChunkExtensionBytes = 1024
    /// Parsed bytes are dropped from the front of the buffer once there are this many.
    private static let compactionThreshold = 4096

    /// The sizes beyond which a request is refused.
    public let limits: Limits
    /// Whether each head waits for `admitBody(limit:)` before its body is read
    /// (`pendingHead`), so a server chooses the limit, or answers at once, from the head.
    public let admitsBodies: Bool
    /// The body limit of the request being read: `limits.maxBodyBytes`, or the one admitted.
    private var bodyLimit: Int

    private var buffer: [UInt8] = []
    /// Bytes before this index are parsed and no longer needed.
    private var consumed = 0
    /// In the head: the next byte to scan for a line end, and where the current line began.
    private var position = 0
    private var lineStart = 0
    private var stage = Stage.head
    private var head: Head?
    private var body: [UInt8] = []
    private var trailerBytes = 0
    /// Chunk-extension bytes of the current request so far.
    private var extensionBytes = 0
    /// In the head: where the request line starts, after any empty lines before it.
    private var requestLineStart = 0
    private var continuePending = false
    private var failure: HTTPRequestError?

    private enum Stage: Equatable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        /// The head is parsed; the body waits for `admitBody(limit:)`.
        case awaitingAdmission
    }

    struct Head {
        var method: String
        var target: String
        var parsedTarget: RequestTarget
        var version: HTTPVersion
        var headers: HTTPHeaders
    }

    /// A parser with no bytes yet.
    /// - Parameters:
    ///   - limits: the sizes beyond which a request is refused.
    ///   - admitsBodies: stop after each head until `admitBody(limit:)` is called; the body
    ///     limit is then the one given there, else `limits.maxBodyBytes`.
    public init(limits: Limits = Limits(), admitsBodies: Bool = false) {
        self.limits = limits
        self.admitsBodies = admitsBodies
        self.bodyLimit = limits.maxBodyBytes
    }

    /// The request whose head has arrived and whose body waits to be admitted (its `body` is
    /// empty): the server reads its method, target and fields and calls `admitBody(limit:)`,
    /// or answers without reading the body and closes. Nil unless `admitsBodies`.
    public var pendingHead: HTTPRequest? {
        guard stage == .awaitingAdmission, let head else { return nil }
        return HTTPRequest(
            method: head.method, target: head.target, parsed: head.parsedTarget, version: head.version,
            headers: head.headers, body: [])
    }

    /// Lets the pending head's body be read, up to `limit` bytes (at most `limits.maxBodyBytes`),
    /// and frames it. A declared length that fits is reserved whole, once: the caller admitted
    /// it, so growing the body by doubling would only cost a copy.
    /// - Throws: `HTTPRequestError` for a framing this parser refuses or a declared length
    ///   over the limit (413); `nextRequest()` throws it again.
    public mutating func admitBody(limit: Int) throws(HTTPRequestError) {
        guard stage == .awaitingAdmission, let head else { return }
        bodyLimit = max(0, min(limit, limits.maxBodyBytes))
        do {
            try startBody(head, reserving: true)
        } catch {
            failure = error
            buffer = []
            body = []
            throw error
        }
    }

    /// Bytes the body still needs when its length was declared: what the server should have
    /// room for before reading on. Nil for a chunked body, or between requests.
    public var remainingDeclaredBodyBytes: Int? {
        if case .fixedBody(let remaining) = stage { return remaining }
        return nil
    }

    /// Adds bytes received from the client.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        // Drop what is parsed (a body's framing, its copied data) before growing the buffer:
        // only the unparsed bytes stay, whatever the body's length.
        if consumed >= Self.compactionThreshold, consumed * 2 >= buffer.count { discardConsumed() }
        buffer.append(contentsOf: bytes)
    }

    /// Whether part of a request has arrived (a client that stops now stopped mid-request).
    /// Empty lines before a request line are not part of one (a client may send a line end
    /// after a body), though they count toward the head's size.
    public var hasPartialRequest: Bool { stage != .head || buffer.count > requestLineStart }

    /// Whether the next bytes belong to a request's head (or to the empty lines before one);
    /// false while a body is read.
    public var isReadingHead: Bool { stage == .head }

    /// How many bytes the parser holds: the buffer and the body so far (what a server counts
    /// against its budget of buffered bytes).
    public var heldBytes: Int { buffer.count + body.count }

    private mutating func discardConsumed() {
        guard consumed > 0 else { return }
        buffer.removeFirst(consumed)
        position -= consumed
        lineStart -= consumed
        requestLineStart -= consumed
        consumed = 0
    }

    /// Takes the bytes after the last complete request: what a client sent after `CONNECT`
    /// belongs to the tunnel (a TLS handshake), not to this parser.
    public mutating func takeUnparsedBytes() -> [UInt8] {
        let rest = Array(buffer[min(consumed, buffer.count)...])
        buffer = []
        (consumed, position, lineStart, requestLineStart) = (0, 0, 0, 0)
        return rest
    }

    /// True once for a request that asked `Expect: 100-continue` and whose body has not
    /// all arrived: the server then sends `100 Continue` so the client sends it.
    public mutating func takeContinueRequest() -> Bool {
        defer { continuePending = false }
        return continuePending
    }

    /// The next complete request, or nil until more bytes arrive.
    /// - Throws: `HTTPRequestError` for bytes that are not an acceptable request; it throws the
    ///   same error on every later call.
    public mutating func nextRequest() throws(HTTPRequestError) -> HTTPRequest? {
        if let failure { throw failure }
        do {
            return try parse()
        } catch {
            failure = error
            buffer = []
            body = []
            throw error
        }
    }

    private mutating func parse() throws(HTTPRequestError) -> HTTPRequest? {
        while true {
            switch stage {
            case .head:
                guard try scanHead() else { return nil }
            case .awaitingAdmission:
                return nil
            case .fixedBody(let remaining):
                let taken = take(upTo: remaining)
                guard taken == remaining else {
                    stage = .fixedBody(remaining: remaining - taken)
                    return nil
                }
                return complete()
            case .chunkSize:
                guard try scanChunkSize() else { return nil }
            case .chunkData(let remaining):
                let taken = take(upTo: remaining)
                stage = taken == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - taken)
                if taken < remaining { return nil }
            case .chunkDataEnd:
                // CRLF (or a bare LF) right after the chunk's data.
                guard consumed < buffer.count else { return nil }
                var end = consumed
                if buffer[end] == UInt8(ascii: "\r") {
                    guard end + 1 < buffer.count else { return nil }
                    end += 1
                }
                guard buffer[end] == UInt8(ascii: "\n") else { throw .badRequest("a chunk is longer than its size") }
                consumed = end + 1
                stage = .chunkSize
            case .trailers:
                guard try scanTrailers() else { return nil }
                return complete()
            }
        }
    }

    // MARK: The head

    /// Scans for the empty line that ends the head; parses the head when found.
    /// - Returns: whether the head is complete (the stage then moved on).
    private mutating func scanHead() throws(HTTPRequestError) -> Bool {
        while position < buffer.count {
            guard let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) else {
                position = buffer.count
                break
            }
            let contentEnd = newline > lineStart && buffer[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
            position = newline + 1
            guard contentEnd == lineStart else {
                lineStart = position
                if position - consumed > limits.maxHeadBytes { throw .headerFieldsTooLarge(limit: limits.maxHeadBytes) }
                continue
            }
            if lineStart == requestLineStart {
                // Empty lines before a request line are skipped (RFC 9112 §2.2), and counted
                // toward the head's limit: they are bytes a client makes the server read.
                requestLineStart = position
                lineStart = position
                if position - consumed > limits.maxHeadBytes { throw .headerFieldsTooLarge(limit: limits.maxHeadBytes) }
                continue
            }
            if position - consumed > limits.maxHeadBytes { throw .headerFieldsTooLarge(limit: limits.maxHeadBytes) }
            let head = try parseHead(buffer[requestLineStart..<lineStart])
            try Self.checkHost(head)
            consumed = position
            requestLineStart = position
            if admitsBodies {
                self.head = head
                stage = .awaitingAdmission
                return false
            }
            try startBody(head, reserving: false)
            return true
        }
        if buffer.count - consumed > limits.maxHeadBytes { throw .headerFieldsTooLarge(limit: limits.maxHeadBytes) }
        return false
    }

    // MARK: Framing

    /// Decides how the body is framed (RFC 9112 §6.3) and moves to that stage.
    private mutating func startBody(_ head: Head, reserving: Bool) throws(HTTPRequestError) {
        let headers = head.headers
        self.head = head
        body = []
        if headers.contains("Transfer-Encoding") {
            // Both framings at once is how requests are smuggled past proxies: refuse.
            guard !headers.contains("Content-Length") else {
                throw .badRequest("both Transfer-Encoding and Content-Length")
            }
            guard head.version == .http11 else { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            let codings = headers.listItems(for: "Transfer-Encoding").map { $0.lowercased() }
            guard let last = codings.last, last == "chunked" else {
                if codings.contains("chunked") || codings.isEmpty {
                    throw .badRequest("chunked is not the last transfer coding")
                }
                throw .notImplemented(codings.last ?? "")
            }
            guard codings.count == 1 else {
                if let other = codings.first(where: { $0 != "chunked" }) { throw .notImplemented(other) }
                throw .badRequest("chunked applied twice")
            }
            stage = .chunkSize
        } else if headers.contains("Content-Length") {
            let length = try contentLength(headers)
            stage = .fixedBody(remaining: length)
            // Only a little ahead of the data, unless admitted: a declared length costs nothing
            // until it arrives.
            if length > 0 { body.reserveCapacity(reserving ? length : min(length, Self.compactionThreshold * 16)) }
        } else {
            stage = .fixedBody(remaining: 0)
        }
        continuePending =
            head.version == .http11 && stage != .fixedBody(remaining: 0)
            && headers.containsToken("100-continue", in: "Expect")
    }

    /// The one length every `Content-Length` value agrees on (`42, 042` is 42).
    private func contentLength(_ headers: HTTPHeaders) throws(HTTPRequestError) -> Int {
        let items = headers.listItems(for: "Content-Length")
        guard !items.isEmpty,
            items.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } })
        else { throw .badRequest("Content-Length is not a decimal number") }
        let numbers = Set(items.map { item in item.drop { $0 == "0" } })
        guard numbers.count == 1, let digits = numbers.first else {
            throw .badRequest("Content-Length values disagree")
        }
        guard digits.count <= 15, let length = Int(digits.isEmpty ? "0" : String(digits)),
            length <= bodyLimit
        else { throw .contentTooLarge(limit: bodyLimit) }
        return length
    }

    // MARK: The body

    /// Moves up to `count` buffered bytes into the body; returns how many it moved.
    private mutating func take(upTo count: Int) -> Int {
        let taken = min(count, buffer.count - consumed)
        if taken > 0 {
            body.append(contentsOf: buffer[consumed..<(consumed + taken)])
            consumed += taken
        }
        return taken
    }

    /// The LF ending the line that starts at `start`, looking at no more than `limit` bytes.
    /// `contentEnd` excludes a CR before the LF.
    private func lineEnd(from start: Int, limit: Int) -> (contentEnd: Int, next: Int)? {
        let end = min(buffer.count, start + limit)
        guard start < end, let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let contentEnd = newline > start && buffer[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
        return (contentEnd, newline + 1)
    }

    /// `1*HEXDIG [ chunk-ext ] CRLF` (RFC 9112 §7.1).
    private mutating func scanChunkSize() throws(HTTPRequestError) -> Bool {
        guard let line = lineEnd(from: consumed, limit: Self.maxChunkLineBytes) else {
            if buffer.count - consumed >= Self.maxChunkLineBytes { throw .badRequest("a chunk-size line is too long") }
            return false
        }
        let bytes = buffer[consumed..<line.contentEnd]
        let digits = bytes.prefix { PercentDecoding.hexValue($0) != nil }
        guard !digits.isEmpty else { throw .badRequest("a chunk does not start with its size in hexadecimal") }
        var size = 0
        for digit in digits {
            size = size * 16 + Int(PercentDecoding.hexValue(digit) ?? 0)
            if size > bodyLimit - body.count { throw .contentTooLarge(limit: bodyLimit) }
        }
        guard digits.count <= Self.maxChunkSizeDigits else {
            throw .badRequest("a chunk size has more than \(Self.maxChunkSizeDigits) digits")
        }
        let extensions = bytes[digits.endIndex...]
        if let first = extensions.first {
            guard first == UInt8(ascii: ";") || first == 0x20 || first == 0x09,
                extensions.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) })
            else { throw .badRequest("a chunk size is followed by something other than an extension") }
            extensionBytes += extensions.count
            guard extensionBytes <= Self.maxChunkExtensionBytes else {
                throw .badRequest("the chunk extensions exceed \(Self.maxChunkExtensionBytes) bytes")
            }
        }
        consumed = line.next
        stage = size == 0 ? .trailers : .chunkData(remaining: size)
        return true
    }

    /// Trailer fields after the last chunk, up to the empty line: checked, then dropped.
    private mutating func scanTrailers() throws(HTTPRequestError) -> Bool {
        while true {
            let room = limits.maxHeadBytes - trailerBytes + 2
            guard let line = lineEnd(from: consumed, limit: room) else {
                if buffer.count - consumed >= room { throw .headerFieldsTooLarge(limit: limits.maxHeadBytes) }
                return false
            }
            let content = buffer[consumed..<line.contentEnd]
            consumed = line.next
            if content.isEmpty { return true }
            trailerBytes += content.count + 2
            guard !content.contains(UInt8(ascii: "\r")) else { throw .badRequest("a bare CR in a trailer") }
            _ = try Self.field(content)
        }
    }

    private mutating func complete() -> HTTPRequest? {
        guard let head else { return nil }
        let request = HTTPRequest(
            method: head.method, target: head.target, parsed: head.parsedTarget, version: head.version,
            headers: head.headers, body: body)
        self.head = nil
        body = []
        trailerBytes = 0
        extensionBytes = 0
        continuePending = false
        bodyLimit = limits.maxBodyBytes
        stage = .head
        // Keep only what follows this request (a pipelined one, usually nothing).
        buffer.removeFirst(consumed)
        consumed = 0
        position = 0
        lineStart = 0
        requestLineStart = 0
        return request
    }
}
