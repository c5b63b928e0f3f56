import Foundation
import IAPSimHTTP
import IAPSimTLS
import IAPSimTestSupport
import Testing

/// `HTTPServer` as an HTTPS proxy target: curl sends `CONNECT` for Apple's host, and the
/// server itself ends the tunnel in TLS and answers the requests inside it with its handler,
/// marked with the host; a `CONNECT` the policy refuses gets 403, and no tunnel is opened to
/// anything else.
@Suite("CONNECT tunnels ended by the server", .serialized)
struct TunnelTests {
    static let host = "api.storekit.itunes.apple.com"

    static func server(_ pki: TestPKI) throws -> HTTPServer {
        let configuration = pki.configuration()
        let tunnels: HTTPServer.TunnelPolicy = { host, port in host == Self.host && port == 443 ? configuration : nil }
        let handler: HTTPServer.Handler = { request in
            .text("\(request.tunnelHost ?? "plain") \(request.method) \(request.path)\n")
        }
        return try HTTPServer(tunnels: tunnels, handler: handler)
    }

    @Test func curlThroughTheProxyReachesTheHandlerOverTLS() throws {
        let curl = try External.require(ExternalProcess.find("curl"), "curl is not installed")
        let pki = try TestPKI()
        let server = try Self.server(pki)
        defer { server.stop() }
        try InteropTests().withRoot(pki) { root in
            let proxy = "http://127.0.0.1:\(server.port)"
            let fetched = try ExternalProcess.run(
                curl,
                [
                    "--silent", "--show-error", "--max-time", "20", "--proxy", proxy, "--cacert", root,
                    "https://\(Self.host)/inApps/v1/transactions/1", "https://\(Self.host)/second",
                ])
            #expect(fetched.status == 0, "\(fetched.error)")
            #expect(fetched.output == "\(Self.host) GET /inApps/v1/transactions/1\n\(Self.host) GET /second\n")
            // Any other host or port: refused at the CONNECT, never tunnelled.
            for target in ["https://example.com/", "https://\(Self.host):8443/", "https://127.0.0.1:\(server.port)/"] {
                let refused = try ExternalProcess.run(
                    curl,
                    [
                        "--silent", "--max-time", "20", "--proxy", proxy, "--cacert", root, "--write-out",
                        "%{http_connect}", target,
                    ])
                #expect(refused.status != 0 && refused.output == "403", "\(target): \(refused.output)")
            }
        }
        #expect(HTTPTestGet.plain(port: server.port) == "plain GET /plain\n", "plain HTTP keeps working")
    }

    @Test(arguments: ["CONNECT example.com:443", "CONNECT api.storekit.itunes.apple.com:80", "CONNECT /x"])
    func aConnectOutsideThePolicyIsRefused(line: String) throws {
        let server = try Self.server(try TestPKI())
        defer { server.stop() }
        let socket = try LoopbackSocket.connect(port: server.port)
        defer { socket.close() }
        let answer = HTTPTestGet.exchange(socket, "\(line) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 403") || answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
    }
}

/// A plain GET with nothing but a socket.
enum HTTPTestGet {
    static func plain(port: UInt16) -> String? {
        guard let socket = try? LoopbackSocket.connect(port: port) else { return nil }
        defer { socket.close() }
        let answer = exchange(socket, "GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return answer.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }

    /// Sends `request` and reads until the server closes (or 5 s pass).
    static func exchange(_ socket: LoopbackSocket, _ request: String) -> String {
        let deadline = ContinuousClock.now + .seconds(5)
        guard socket.send(Array(request.utf8), until: deadline) else { return "" }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<256 {
            guard case .bytes(let count) = socket.receive(into: &buffer, until: deadline) else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
