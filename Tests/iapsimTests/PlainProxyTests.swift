import Foundation
import IAPSimHTTP
import IAPSimKit
import Testing

@testable import iapsim

/// `serve` as a client's plain HTTP proxy: iapsim's OCSP host is answered, a URL naming serve
/// itself is served as usual, and every other host is refused: nothing is forwarded.
@Suite struct PlainProxyTests {
    static func proxy() -> Serve.PlainProxy {
        let proxy = Serve.PlainProxy(
            responder: OCSPResponder(directory: "/nonexistent", realNow: { Date() }, simulatedNow: { nil }),
            listeningHost: "127.0.0.1")
        proxy.listeningPort.value = 8123
        return proxy
    }

    @Test(arguments: [
        "http://example.test/", "http://127.0.0.1:8124/inApps/v1/transactions/1", "https://ocsp.iapsim.test.evil/",
        "http://api.storekit.itunes.apple.com/inApps/v1/transactions/1",
    ])
    func otherHostsAreRefused(target: String) throws {
        let answer = try #require(Self.proxy().answer(try HTTPRequest(target: target)))
        #expect(answer.response.status == .forbidden)
    }

    @Test(arguments: [
        "/inApps/v1/transactions/1", "http://127.0.0.1:8123/inApps/v1/transactions/1", "http://localhost:8123/x",
    ])
    func requestsForServeItselfAreServed(target: String) throws {
        #expect(Self.proxy().answer(try HTTPRequest(target: target)) == nil)
    }

    @Test func theOCSPHostIsAnswered() throws {
        // No certificates in the folder: the responder speaks for no issuer.
        let answer = try #require(Self.proxy().answer(try HTTPRequest(method: "POST", target: OCSPResponder.url)))
        #expect(answer.response.status == .ok)
        #expect(answer.response.headers["Content-Type"] == "application/ocsp-response")
    }
}
