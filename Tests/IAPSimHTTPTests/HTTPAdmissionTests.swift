import Foundation
import Testing

@testable import IAPSimHTTP

/// What a server decides from a request's head before its body is read, and the budget of
/// bytes its connections may hold together.
@Suite struct HTTPAdmissionTests {
    /// Counts the requests that reached the handler.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    /// `/small` takes 10 bytes, `/refused` is answered at once, the rest take the server's limit.
    private static let admission: HTTPAdmission.Decider = { head in
        switch head.path {
        case "/small": .readBody(limit: 10)
        case "/refused": .answer(HTTPResponse.text("no", status: 401))
        default: .readBody(limit: .max)
        }
    }

    private func start(_ configuration: HTTPServer.Configuration = .init(), calls: Calls) throws -> HTTPServer {
        try HTTPServer(configuration, admission: Self.admission) { request in
            calls.add()
            return .text("got \(request.body.count)")
        }
    }

    /// The limit comes from the request line: a declared length past it is refused before a
    /// byte of the body is sent.
    @Test func theLimitIsChosenFromTheRequestLineBeforeTheBodyIsRead() throws {
        let calls = Calls()
        let server = try start(calls: calls)
        defer { server.stop() }
        let client = try #require(HTTPTestClient(port: server.port, timeout: 3))
        client.send("POST /small HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.status == 413)
        #expect(response.header("Connection") == "close")
        let other = try #require(HTTPTestClient(port: server.port, timeout: 3))
        other.send("POST /other HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world")
        #expect(other.readResponse()?.text == "got 11")
        #expect(calls.value == 1)
    }

    @Test func aChunkedBodyPastTheChosenLimitIs413() throws {
        let calls = Calls()
        let server = try start(calls: calls)
        defer { server.stop() }
        let client = try #require(HTTPTestClient(port: server.port, timeout: 3))
        client.send(
            "POST /small HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n")
        #expect(client.readResponse()?.status == 413)
        #expect(calls.value == 0)
    }

    /// An answer from the head is sent without waiting for the body, which is never read.
    @Test func aRefusalFromTheHeadIsSentWithoutTheBody() throws {
        let calls = Calls()
        let server = try start(calls: calls)
        defer { server.stop() }
        let client = try #require(HTTPTestClient(port: server.port, timeout: 3))
        client.send("POST /refused HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.status == 401)
        #expect(response.text == "no")
        #expect(response.header("Connection") == "close")
        #expect(calls.value == 0)
    }

    /// Past the budget of buffered bytes, 503 with `Retry-After`; what was held is given back
    /// once answered, so the next request fits.
    @Test func pastTheBudgetOfBufferedBytesIs503WithRetryAfter() throws {
        let calls = Calls()
        var configuration = HTTPServer.Configuration()
        configuration.bufferBudget = BufferBudget(capacity: 4096)
        let server = try start(configuration, calls: calls)
        defer { server.stop() }
        let big = try #require(HTTPTestClient(port: server.port, timeout: 3))
        big.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n\r\n")
        let refused = try #require(big.readResponse())
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        for _ in 0..<3 {
            let client = try #require(HTTPTestClient(port: server.port, timeout: 3))
            client.send(
                "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3000\r\n\r\n" + String(repeating: "b", count: 3000))
            #expect(client.readResponse()?.text == "got 3000")
        }
        #expect(configuration.bufferBudget.reserved == 0 || server.openConnections > 0)
    }

    /// Without a decider, a chunked body counts toward the budget as its bytes arrive.
    @Test func aChunkedBodyIsCountedAsItArrives() throws {
        var configuration = HTTPServer.Configuration()
        configuration.bufferBudget = BufferBudget(capacity: 2048)
        let server = try HTTPServer(configuration) { .text("got \($0.body.count)") }
        defer { server.stop() }
        let client = try #require(HTTPTestClient(port: server.port, timeout: 3))
        let chunk = "400\r\n" + String(repeating: "c", count: 1024) + "\r\n"
        client.send("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + chunk + chunk)
        #expect(client.readResponse()?.status == 503)
    }

    @Test func theParserWaitsForAdmissionAfterTheHead() throws {
        var parser = HTTPRequestParser(admitsBodies: true)
        parser.append(Array("POST /a?b=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc".utf8))
        #expect(try parser.nextRequest() == nil)
        let head = try #require(parser.pendingHead)
        #expect(head.path == "/a" && head.body.isEmpty && head.headers["Host"] == "h")
        try parser.admitBody(limit: 3)
        #expect(parser.pendingHead == nil)
        #expect(try parser.nextRequest()?.body == Array("abc".utf8))
        var refusing = HTTPRequestParser(admitsBodies: true)
        refusing.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\n".utf8))
        _ = try refusing.nextRequest()
        #expect(throws: HTTPRequestError.contentTooLarge(limit: 2)) { try refusing.admitBody(limit: 2) }
    }

    @Test(arguments: [
        ("127.0.0.1:8080", true), ("localhost:8080", true), ("LocalHost:8080", true), ("[::1]:8080", true),
        ("evil.example:8080", false), ("127.0.0.1:8081", false), ("localhost", false), ("127.0.0.1", false),
        ("[::1]", false), ("10.0.0.5:8080", false),
    ])
    func theHostPolicyNamesLoopbackOnTheServersPort(host: String, allowed: Bool) {
        #expect(HostPolicy(port: 8080).allows(host) == allowed)
        #expect(HostPolicy(port: 8080, acceptsAny: true).allows(host))
    }

    @Test func hostsGivenAreAllowedAndPort80MayGoUnsaid() {
        let policy = HostPolicy(port: 80, extraHosts: ["10.0.0.5", "fe80::1"])
        for host in ["10.0.0.5:80", "10.0.0.5", "[fe80::1]:80", "localhost", "127.0.0.1:80"] {
            #expect(policy.allows(host), "\(host)")
        }
        #expect(!policy.allows(nil))
    }
}
