import Testing

@testable import IAPSimHTTP

@Suite struct HTTPResponseTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func aJSONResponseOnTheWire() {
        let bytes = HTTPResponse.json("{\"a\":1}").serialized(closing: false)
        #expect(
            text(bytes) == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}")
    }

    @Test func closingSaysSoAndHTTP10KeepAliveIsNamed() {
        #expect(
            text(HTTPResponse.status(.notFound).serialized(closing: true)).contains(
                "Content-Length: 10\r\nConnection: close\r\n\r\nNot Found\n"))
        #expect(
            text(HTTPResponse(status: 200).serialized(closing: false, keepAliveHeader: true)).hasSuffix(
                "Content-Length: 0\r\nConnection: keep-alive\r\n\r\n"))
    }

    @Test func headKeepsTheLengthAndDropsTheBody() {
        let bytes = HTTPResponse.text("hello").serialized(closing: false, headOnly: true)
        #expect(text(bytes).hasSuffix("Content-Length: 5\r\n\r\n"))
    }

    @Test func noContentHasNeitherLengthNorBody() {
        let bytes = HTTPResponse(status: .noContent, body: Array("x".utf8)).serialized(closing: false)
        #expect(text(bytes) == "HTTP/1.1 204 No Content\r\n\r\n")
    }

    @Test func theServerOwnsFramingAndNoValueStartsAField() {
        let response = HTTPResponse(
            status: 201,
            headers: [
                "content-length": "99", "Transfer-Encoding": "chunked", "X-A": "1\r\nSet-Cookie: evil", "Bad Name": "v",
            ],
            body: Array("abc".utf8))
        #expect(
            text(response.serialized(closing: false))
                == "HTTP/1.1 201 Created\r\nX-A: 1  Set-Cookie: evil\r\nContent-Length: 3\r\n\r\nabc")
    }

    @Test func unknownCodesGetTheirClassPhrase() {
        #expect(HTTPStatus(299).reasonPhrase == "Success")
        #expect(HTTPStatus(599).description == "599 Server Error")
        #expect(HTTPStatus.tooManyRequests.description == "429 Too Many Requests")
    }
}
