import Foundation
import Testing

@testable import IAPSimHTTP

/// The webhook URLs `settings set notification-url` takes.
@Suite struct HTTPEndpointTests {
    @Test(arguments: [
        ("http://example.com/hook", "example.com", 80, "/hook"), ("http://127.0.0.1:8080", "127.0.0.1", 8080, "/"),
        ("http://[::1]:9/x?y=1", "::1", 9, "/x?y=1"), ("http://my-host_1.local.:81/", "my-host_1.local.", 81, "/"),
    ])
    func aURLGivesItsHostPortAndPath(text: String, host: String, port: Int, path: String) throws {
        let endpoint = try HTTPEndpoint(text)
        #expect(endpoint.host == host && Int(endpoint.port) == port && endpoint.path == path)
    }

    /// `http://h:1:2/` was taken as host `h:1`, port 2: a host no resolver reads as written.
    @Test(arguments: [
        "http://h:1:2/", "http://h:1:/", "http://::1/", "http://h%41/", "http://a b/", "http://h\u{1}/",
        "http://[::1/", "http://[::1]x/", "http://h:0/", "http://h:65536/", "http://:80/", "http://user@h/",
    ])
    func aHostThatIsNotANameOrAnAddressIsRefused(text: String) {
        #expect(throws: HTTPEndpoint.Failure.self) { try HTTPEndpoint(text) }
    }
}

/// A POST a signal asks to stop is abandoned at once, not at its timeout.
@Suite struct HTTPClientCancellationTests {
    @Test func aCancelledPostEndsWithinATenthOfASecond() throws {
        // A listener that never accepts: the connection completes in its backlog, and no
        // answer ever comes.
        let server = try HTTPServer(.init(maxConnections: 1)) { _ in
            Thread.sleep(forTimeInterval: 3)
            return .text("late")
        }
        defer { server.stop() }
        let endpoint = try HTTPEndpoint("http://127.0.0.1:\(server.port)/hook")
        let started = Date()
        let outcome = HTTPClient.post(endpoint, body: Array("{}".utf8), timeout: 10) {
            Date().timeIntervalSince(started) > 0.3
        }
        let took = Date().timeIntervalSince(started)
        #expect(outcome == .cancelled)
        #expect(took < 1, "abandoned at once, not after the 10 s timeout: \(took) s")
    }
}
