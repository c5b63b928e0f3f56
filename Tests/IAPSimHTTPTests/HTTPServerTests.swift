import Foundation
import Testing

@testable import IAPSimHTTP

@Suite struct HTTPServerTests {
    /// Answers with the method, path, query and body it got, and a few fixed routes.
    private static let echo: HTTPServer.Handler = { request in
        switch request.path {
        case "/close":
            return HTTPResponse(headers: ["Connection": "close"], body: Array("bye".utf8))
        case "/slow":
            Thread.sleep(forTimeInterval: 0.3)
            return .text("slow")
        default:
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return .text("\(request.method) \(request.path) \(query) \(String(decoding: request.body, as: UTF8.self))")
        }
    }

    private func startServer(_ configuration: HTTPServer.Configuration = .init()) throws -> HTTPServer {
        try HTTPServer(configuration, handler: Self.echo)
    }

    @Test func itListensOnAFreePortAndAnswers() throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(server.port != 0)
        let response = try #require(HTTPTestClient.get("/a%20b?x=1&x=2", port: server.port))
        #expect(response.status == 200)
        #expect(response.text == "GET /a b x=1&x=2 ")
        #expect(response.header("Connection") == "close")
        #expect(response.header("Date")?.hasSuffix(" GMT") == true)
    }

    @Test func twoRequestsOnOneKeptAliveConnection() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try #require(HTTPTestClient(port: server.port))
        client.send("GET /one HTTP/1.1\r\nHost: a\r\n\r\n")
        let first = try #require(client.readResponse())
        #expect(first.text == "GET /one  ")
        #expect(first.header("Connection") == nil)
        client.send("POST /two HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody")
        #expect(client.readResponse()?.text == "POST /two  body")
        #expect(server.openConnections == 1)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try #require(HTTPTestClient(port: server.port))
        client.send(
            "GET /slow HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nHEAD /3 HTTP/1.1\r\nHost: a\r\n\r\n"
        )
        #expect(client.readResponse()?.text == "slow")
        #expect(client.readResponse()?.text == "GET /2  ")
        let head = try #require(client.readResponse(head: true))
        #expect(head.header("Content-Length") == "9")  // of "HEAD /3  "

        #expect(head.body.isEmpty)
    }

    @Test func http10AndConnectionCloseEndTheConnection() throws {
        let server = try startServer()
        defer { server.stop() }
        let old = try #require(HTTPTestClient(port: server.port))
        old.send("GET /old HTTP/1.0\r\n\r\n")
        #expect(old.readResponse()?.header("Connection") == "close")
        #expect(old.isClosedByServer())
        let kept = try #require(HTTPTestClient(port: server.port))
        kept.send("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(kept.readResponse()?.header("Connection") == "keep-alive")
        kept.send("GET /close HTTP/1.1\r\nHost: a\r\n\r\n")
        let closing = try #require(kept.readResponse())
        #expect(closing.text == "bye")
        #expect(closing.header("Connection") == "close")
        #expect(kept.isClosedByServer())
    }

    @Test func expectContinueGetsAnInterimResponse() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try #require(HTTPTestClient(port: server.port))
        client.send("PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        #expect(client.readResponse()?.status == 100)
        client.send("ok")
        #expect(client.readResponse()?.text == "PUT /x  ok")
    }

    @Test func aMalformedRequestIsAnsweredAndTheConnectionClosed() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try #require(HTTPTestClient(port: server.port))
        client.send("GET / HTTP/3.0\r\nHost: a\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.status == 505)
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByServer())
    }

    @Test func theProjectsHTTPClientGetsAnswers() throws {
        let server = try startServer()
        defer { server.stop() }
        let endpoint = try HTTPEndpoint("http://127.0.0.1:\(server.port)/inApps/v1/notifications/test")
        #expect(HTTPClient.post(endpoint, body: Array("{}".utf8), timeout: 5) == .response(status: 200))
    }

    @Test func concurrentClientsAreEachAnswered() async throws {
        let server = try startServer()
        defer { server.stop() }
        let answers = Collected<String>()
        await onThreads(16) { client in
            guard let connection = HTTPTestClient(port: server.port) else { return }
            for request in 0..<10 {
                connection.send("GET /c\(client)/r\(request) HTTP/1.1\r\nHost: a\r\n\r\n")
                if let response = connection.readResponse() { answers.append(response.text) }
            }
        }
        #expect(Set(answers.all) == Set((0..<16).flatMap { c in (0..<10).map { "GET /c\(c)/r\($0)  " } }))
    }

    @Test func stopClosesThePortAndIdleConnections() throws {
        let server = try startServer()
        let idle = try #require(HTTPTestClient(port: server.port))
        idle.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(idle.readResponse()?.status == 200)
        let started = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(idle.isClosedByServer())
        #expect(HTTPTestClient(port: server.port) == nil)
        #expect(server.openConnections == 0)
        server.stop()  // a second stop returns at once
    }

    @Test func stopLetsARunningHandlerAnswer() async throws {
        let handlerStarted = DispatchSemaphore(value: 0)
        let server = try HTTPServer { _ in
            handlerStarted.signal()
            Thread.sleep(forTimeInterval: 0.3)
            return .text("slow")
        }
        let answer = Collected<HTTPTestClient.Response?>()
        await onThreads(2) { index in
            if index == 0 {
                let client = HTTPTestClient(port: server.port)
                client?.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
                answer.append(client?.readResponse())
            } else {
                _ = handlerStarted.wait(timeout: .now() + 5)
                server.stop()
            }
        }
        let response = answer.all.first ?? nil
        #expect(response?.text == "slow")
        #expect(response?.header("Connection") == "close")
    }

    /// `listen` sent `Host: ::1:PORT` (no brackets), and `--header` could add a second Host,
    /// Content-Length or Transfer-Encoding: the server saw a request it had to refuse, or two
    /// framings. The client writes those fields itself, once, and brackets an IPv6 host.
    @Test func theClientBracketsAnIPv6HostAndAloneFramesItsRequest() throws {
        let seen = Collected<HTTPHeaders>()
        let server = try HTTPServer(.init(host: "::1")) { request in
            seen.append(request.headers)
            return .text("ok")
        }
        defer { server.stop() }
        let endpoint = try HTTPEndpoint("http://[::1]:\(server.port)/hook")
        #expect(HTTPClient.hostField(endpoint) == "[::1]:\(server.port)")
        let extra = [
            ("Host", "elsewhere"), ("Content-Length", "0"), ("transfer-encoding", "chunked"),
            ("Connection", "keep-alive"), ("X-Signature", "abc"),
        ]
        #expect(HTTPClient.post(endpoint, body: Array("{}".utf8), headers: extra, timeout: 5) == .response(status: 200))
        let headers = try #require(seen.all.first)
        #expect(headers.values(for: "Host") == ["[::1]:\(server.port)"])
        #expect(headers.values(for: "Content-Length") == ["2"])
        #expect(headers.values(for: "Transfer-Encoding").isEmpty)
        #expect(headers.values(for: "Connection") == ["close"])
        #expect(headers["X-Signature"] == "abc")
        #expect(HTTPClient.isReserved(headerName: "CONTENT-LENGTH") && !HTTPClient.isReserved(headerName: "X-A"))
    }

    /// `serve --host 0.0.0.0` listened to the whole network without a word: the server takes
    /// loopback addresses only, unless remote clients are allowed.
    @Test func onlyLoopbackAddressesUnlessRemoteClientsAreAllowed() throws {
        for host in ["0.0.0.0", "::"] {
            #expect(throws: HTTPServerError.notLoopback(host: host)) {
                try HTTPServer(.init(host: host), handler: Self.echo)
            }
        }
        let open = try HTTPServer(.init(host: "0.0.0.0", allowsRemoteClients: true), handler: Self.echo)
        open.stop()
        let local = try HTTPServer(.init(host: "localhost"), handler: Self.echo)
        local.stop()
        for host in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "localhost", "LOCALHOST"] {
            #expect(Loopback.isLoopback(host), "\(host)")
        }
        for host in ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "::ffff:10.0.0.1", "example.com", "fe80::1"] {
            #expect(!Loopback.isLoopback(host), "\(host)")
        }
    }

    @Test func aPortInUseIsRefusedWithAReason() throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(throws: HTTPServerError.self) { try HTTPServer(.init(port: server.port), handler: Self.echo) }
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(.init(host: "no-such-host.invalid"), handler: Self.echo)
        }
    }
}
