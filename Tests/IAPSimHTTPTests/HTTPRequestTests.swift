import Foundation
import Testing

@testable import IAPSimHTTP

@Suite struct HTTPRequestTests {
    /// Parses `text` fed in one piece; nil when it is incomplete.
    private func parse(_ text: String, limits: HTTPRequestParser.Limits = .init()) throws(HTTPRequestError)
        -> HTTPRequest?
    {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(text.utf8))
        return try parser.nextRequest()
    }

    /// The status a malformed request is refused with.
    private func refusal(_ bytes: [UInt8], limits: HTTPRequestParser.Limits = .init()) -> Int? {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(bytes)
        return status(&parser)
    }

    /// The status of the error the next request throws; nil when none is thrown.
    private func status(_ parser: inout HTTPRequestParser) -> Int? {
        do {
            _ = try parser.nextRequest()
            return nil
        } catch {
            return error.status.code
        }
    }

    @Test func aGETWithItsHeadersAndQuery() throws {
        let request = try #require(
            try parse(
                "GET /inApps/v1/history/2000%2B01?productId=a&productId=b&sort=DESCENDING&q=a+b%20c&flag HTTP/1.1\r\n"
                    + "Host: localhost\r\nAuthorization: Bearer x.y.z\r\nX-Empty:\r\nAccept:  */*  \r\n\r\n"))
        #expect(request.method == "GET")
        #expect(request.version == .http11)
        #expect(request.path == "/inApps/v1/history/2000+01")
        #expect(request.pathComponents == ["inApps", "v1", "history", "2000+01"])
        #expect(
            request.query.map { [$0.name, $0.value] } == [
                ["productId", "a"], ["productId", "b"], ["sort", "DESCENDING"], ["q", "a b c"], ["flag", ""],
            ])
        #expect(request.queryValues("productId") == ["a", "b"])
        #expect(request.queryValue("sort") == "DESCENDING")
        #expect(request.queryValue("absent") == nil)
        #expect(request.headers["authorization"] == "Bearer x.y.z")
        #expect(request.headers["AUTHORIZATION"] == "Bearer x.y.z")
        #expect(request.headers["x-empty"] == "")
        #expect(request.headers["Accept"] == "*/*")
        #expect(request.body.isEmpty)
        #expect(request.keepAlive)
    }

    @Test func pathComponentsAreDecodedOneByOneAndDotSegmentsResolved() throws {
        let request = try HTTPRequest(target: "/a//b/./c/../d%2Fe/%E2%82%AC/%2e%2e/f/")
        #expect(request.pathComponents == ["a", "b", "d/e", "f"])
        let encodedSlash = try HTTPRequest(target: "/a/d%2Fe")
        #expect(encodedSlash.pathComponents == ["a", "d/e"])
        #expect(encodedSlash.path == "/a/d/e")
        #expect(try HTTPRequest(target: "/../../etc/passwd").pathComponents == ["etc", "passwd"])
        #expect(try HTTPRequest(target: "/%E2%82%AC").path == "/€")
    }

    @Test func theAbsoluteFormAndAsteriskForm() throws {
        let absolute = try #require(try parse("GET http://127.0.0.1:8080/a/b?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        #expect(absolute.path == "/a/b")
        #expect(absolute.queryValue("x") == "1")
        #expect(try HTTPRequest(target: "HTTP://host?x=1").path == "/")
        #expect(try HTTPRequest(method: "OPTIONS", target: "*").path == "*")
    }

    @Test func anAbsoluteFormTargetKeepsItsAuthorityForAProxy() throws {
        let cases: [(String, String?, Int?)] = [
            ("http://ocsp.iapsim.test/", "ocsp.iapsim.test", 80),
            ("HTTP://Example.TEST:8080/a?x=1", "example.test", 8080),
            ("https://example.test", "example.test", 443), ("http://[::1]:9000/x", "::1", 9000),
            ("http://[::1]/x", "::1", 80), ("http://user@127.0.0.1:81/", "127.0.0.1", 81), ("/inApps/v1", nil, nil),
        ]
        for (target, host, port) in cases {
            let request = try HTTPRequest(target: target)
            #expect(request.absoluteAuthority?.host == host, "\(target)")
            #expect(request.absoluteAuthority?.port == port, "\(target)")
        }
        #expect(throws: HTTPRequestError.self) { try HTTPRequest(target: "http://host:0/") }
        #expect(throws: HTTPRequestError.self) { try HTTPRequest(target: "http://host:x/") }
    }

    @Test func aBodyByContentLengthArrivingAByteAtATime() throws {
        let bytes = Array("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world".utf8)
        var parser = HTTPRequestParser()
        for (index, byte) in bytes.enumerated() {
            parser.append([byte])
            let request = try parser.nextRequest()
            #expect((request == nil) == (index < bytes.count - 1))
            if let request { #expect(request.body == Array("hello world".utf8)) }
        }
        #expect(!parser.hasPartialRequest)
    }

    @Test func pipelinedRequestsComeOutInOrder() throws {
        var parser = HTTPRequestParser()
        parser.append(
            Array(
                "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok\r\n\r\nGET /3 HTTP/1.0\r\n\r\nGET /4"
                    .utf8))
        #expect(try parser.nextRequest()?.path == "/1")
        let second = try #require(try parser.nextRequest())
        #expect(second.path == "/2")
        #expect(second.body == Array("ok".utf8))
        let third = try #require(try parser.nextRequest())
        #expect(third.path == "/3")
        #expect(third.version == .http10)
        #expect(!third.keepAlive)
        #expect(try parser.nextRequest() == nil)
        #expect(parser.hasPartialRequest)
    }

    @Test func bareLineFeedsAndALeadingEmptyLineAreAccepted() throws {
        let request = try #require(try parse("\r\n\nGET /a HTTP/1.1\nHost: a\n\n"))
        #expect(request.path == "/a")
        #expect(request.headers["host"] == "a")
    }

    @Test func aChunkedBodyWithExtensionsAndTrailers() throws {
        let text =
            "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n1\r\n \r\nA \r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n"
        var parser = HTTPRequestParser()
        var requests: [HTTPRequest] = []
        for byte in text.utf8 {
            parser.append([byte])
            if let request = try parser.nextRequest() { requests.append(request) }
        }
        #expect(requests.map(\.path) == ["/c", "/next"])
        #expect(requests.first?.body == Array("hello 0123456789".utf8))
    }

    @Test func expectContinueIsReportedOnceWhileTheBodyIsAwaited() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8))
        #expect(try parser.nextRequest() == nil)
        let first = parser.takeContinueRequest()
        let second = parser.takeContinueRequest()
        #expect(first && !second)
        parser.append(Array("abc".utf8))
        #expect(try parser.nextRequest()?.body == Array("abc".utf8))
    }

    @Test func keepAliveFollowsTheVersionAndConnectionHeader() throws {
        #expect(try parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n")?.keepAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")?.keepAlive == true)
        #expect(try parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Upgrade\r\n\r\n")?.keepAlive == true)
    }

    @Test func contentLengthRepeatedWithOneValueIsAccepted() throws {
        let request = try parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 2\r\nContent-Length: 02\r\n\r\nok")
        #expect(request?.body == Array("ok".utf8))
    }

    @Test(arguments: [
        ("obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n continued\r\n\r\n", 400),
        ("two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("no version", "GET /\r\nHost: a\r\n\r\n", 400),
        ("lowercase version", "GET / http/1.1\r\nHost: a\r\n\r\n", 400),
        ("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", 505),
        ("HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", 505),
        ("method not a token", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("no Host", "GET / HTTP/1.1\r\n\r\n", 400),
        ("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        ("no colon", "GET / HTTP/1.1\r\nHost: a\r\nJunk\r\n\r\n", 400),
        ("empty name", "GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n", 400),
        ("NUL in a value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", 400),
        ("bare CR", "GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", 400),
        ("Content-Length not a number", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", 400),
        ("Content-Length negative", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        ("Content-Length empty", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", 400),
        ("Content-Lengths differ", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\nab", 400),
        ("Content-Length too large", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048577\r\n\r\n", 413),
        ("Content-Length huge", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        ("both framings", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("gzip then chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("chunked not last", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
        ("chunked twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400),
        ("empty transfer coding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n", 400),
        ("chunked in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("chunk size not hex", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        (
            "chunk longer than its size",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", 400
        ),
        ("chunk too large", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n100001\r\n", 413),
        (
            "chunk size overflow",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFF\r\n", 413
        ),
        ("invalid percent in path", "GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("truncated percent", "GET /a% HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("NUL in path", "GET /a%00b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("newline in path", "GET /a%0Ab HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("invalid UTF-8 in path", "GET /%FF HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("invalid percent in query", "GET /?a=%G1 HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("invalid UTF-8 in query", "GET /?a=%C3%28 HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("relative target", "GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("asterisk for GET", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("fragment", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("other scheme", "GET ftp://a/b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("URL without host", "GET http:///b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("non-ASCII target", "GET /é HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ])
    func malformedRequestsAreRefusedWithTheirStatus(name: String, text: String, status: Int) {
        #expect(refusal(Array(text.utf8)) == status, "\(name)")
    }

    @Test func headersBeyondTheLimitAre431EvenBeforeTheyEnd() {
        let big = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 16 * 1024) + "\r\n\r\n"
        #expect(refusal(Array(big.utf8)) == 431)
        #expect(refusal(Array(big.utf8.prefix(17 * 1024 - 100))) == 431)
        #expect(refusal(Array(String(repeating: "A", count: 16 * 1024 + 1).utf8)) == 431)
        let many = "GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X-A: b\r\n", count: 3000)
        #expect(refusal(Array(many.utf8)) == 431)
        let small = HTTPRequestParser.Limits(maxHeadBytes: 64)
        #expect(refusal(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8), limits: small) == nil)
        #expect(
            refusal(
                Array(("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 40) + "\r\n\r\n").utf8),
                limits: small) == 431)
    }

    @Test func aChunkedBodyBeyondTheLimitIs413() {
        let limits = HTTPRequestParser.Limits(maxBodyBytes: 10)
        let text = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\n"
        #expect(refusal(Array(text.utf8), limits: limits) == 413)
        #expect(refusal(Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n".utf8), limits: limits) == 413)
        #expect(refusal(Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n".utf8), limits: limits) == nil)
    }

    @Test func trailersBeyondTheLimitAre431() {
        let limits = HTTPRequestParser.Limits(maxHeadBytes: 100)
        let text =
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
            + String(repeating: "T: v\r\n", count: 30)
        #expect(refusal(Array(text.utf8), limits: limits) == 431)
    }

    /// Feeds `piece` up to `count` times, 16 KiB at a time as the server reads, until the
    /// parser throws; returns the status and the most bytes it held meanwhile.
    private func flood(_ head: String, _ piece: [UInt8], count: Int, limits: HTTPRequestParser.Limits = .init())
        -> (status: Int?, held: Int)
    {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(head.utf8))
        var pending: [UInt8] = []
        var held = 0
        for index in 0..<count {
            pending += piece
            guard pending.count >= 16 * 1024 || index == count - 1 else { continue }
            parser.append(pending)
            pending = []
            held = max(held, parser.heldBytes)
            do {
                if try parser.nextRequest() != nil { return (nil, held) }
            } catch {
                return (error.status.code, held)
            }
        }
        return (nil, held)
    }

    /// Empty lines before a request line were skipped but never dropped: a megabyte of line
    /// ends was a megabyte held. They count toward the head's 16 KiB now.
    @Test func emptyLinesBeforeARequestLineCountTowardTheHeadLimit() {
        let result = flood("", Array("\r\n".utf8), count: 512 * 1024)
        #expect(result.status == 431)
        #expect(result.held <= 32 * 1024, "held \(result.held) bytes")
        let ahead = String(repeating: "\r\n", count: 100) + "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(refusal(Array(ahead.utf8)) == nil)
    }

    /// Each one-byte chunk could carry a 1,000-byte extension, all of it kept until the body
    /// ended: the extensions of a request are bounded together, and the size's digits too.
    @Test func chunkExtensionsAndSizeDigitsAreBounded() {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        let extended = Array(("1;" + String(repeating: "x", count: 1000) + "\r\na\r\n").utf8)
        let result = flood(head, extended, count: 10_000)
        #expect(result.status == 400)
        #expect(result.held <= 64 * 1024, "held \(result.held) bytes")
        let zeros = Array((String(repeating: "0", count: 1000) + "1\r\na\r\n").utf8)
        #expect(flood(head, zeros, count: 10).status == 400)
        #expect(refusal(Array((head + "0000000000000001\r\na\r\n0\r\n\r\n").utf8)) == nil)
    }

    /// A body's framing and its copied bytes are dropped as it arrives: 200 KiB in one-byte
    /// chunks (1.2 MB on the wire) holds little more than the body itself.
    @Test func aChunkedBodyIsNotHeldTwice() throws {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        var parser = HTTPRequestParser()
        parser.append(Array(head.utf8))
        var held = 0
        let chunk = Array("1\r\nb\r\n".utf8)
        for _ in 0..<(200 * 1024 / 2730) {
            parser.append([UInt8]((0..<2730).flatMap { _ in chunk }))
            held = max(held, parser.heldBytes)
            #expect(try parser.nextRequest() == nil)
        }
        parser.append(Array("0\r\n\r\n".utf8))
        let request = try parser.nextRequest()
        #expect(request?.body.count == 200 * 1024 / 2730 * 2730)
        #expect(held <= 200 * 1024 + 64 * 1024, "held \(held) bytes")
    }

    @Test func anErrorIsThrownAgainOnEveryLaterCall() {
        var parser = HTTPRequestParser()
        parser.append(Array("BAD\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(status(&parser) == 400)
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(status(&parser) == 400)
    }

    @Test func randomBytesNeverTrap() {
        var generator = SeededRandom(label: "HTTPRequestTests.randomBytesNeverTrap")
        let pieces = [
            "GET ", "POST ", "/", "?a=%", "%4", " HTTP/1.1", "\r\n", "\n", "\r", ":", " ", "Host: a",
            "Content-Length: ", "Transfer-Encoding: chunked", "0", "5", "ff", ";x", "\u{0}", "é",
        ].map { Array($0.utf8) }
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<24, using: &generator) {
                if Bool.random(using: &generator) {
                    bytes += pieces.randomElement(using: &generator)!
                } else {
                    bytes.append(UInt8.random(in: 0...255, using: &generator))
                }
            }
            var parser = HTTPRequestParser(limits: .init(maxHeadBytes: 64, maxBodyBytes: 16))
            let split = Int.random(in: 0...bytes.count, using: &generator)
            parser.append(bytes[..<split])
            for _ in 0..<3 { _ = try? parser.nextRequest() }
            parser.append(bytes[split...])
            for _ in 0..<3 { _ = try? parser.nextRequest() }
        }
    }

    @Test func anErrorNamesWhatWasWrong() {
        #expect(HTTPRequestError.unsupportedVersion("HTTP/2.0").errorDescription?.contains("HTTP/2.0") == true)
        #expect(HTTPRequestError.contentTooLarge(limit: 10).status == .contentTooLarge)
        #expect(HTTPResponse.error(.badRequest("the method is not a token")).status == .badRequest)
    }
}
