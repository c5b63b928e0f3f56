import Foundation
import IAPSimCrypto
import IAPSimTLS
import IAPSimTestSupport
import Testing

/// Real clients against the server on 127.0.0.1: openssl s_client, curl and Python's ssl (and
/// requests, when installed), each verifying the TEST ONLY chain for Apple's host name. Where
/// a tool is missing the test is skipped with a message, or fails when CI is set.
@Suite("TLS interop with real clients", .serialized)
struct InteropTests {
    static let host = "api.storekit.itunes.apple.com"

    /// A temporary folder holding the root certificate as root.pem.
    func withRoot<T>(_ pki: TestPKI, _ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("iapsim-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("root.pem").path
        try Data(pki.root.pemRepresentation.utf8).write(to: URL(fileURLWithPath: path))
        return try body(path)
    }

    @Test(
        "openssl s_client verifies the chain and negotiates TLS 1.3 and http/1.1",
        arguments: [
            ("X25519", TLSNamedGroup.x25519, false), ("P-256", .secp256r1, false), ("P-384:X25519", .x25519, true),
        ])
    func openssl(groups: String, group: TLSNamedGroup, retry: Bool) throws {
        let openssl = try External.require(ExternalProcess.find("openssl"), "openssl is not installed")
        let pki = try TestPKI()
        let server = try TestHTTPSServer(configuration: pki.configuration(), connections: 1)
        let result = try withRoot(pki) { root in
            try ExternalProcess.run(
                openssl,
                [
                    "s_client", "-tls1_3", "-connect", "127.0.0.1:\(server.port)", "-servername", Self.host,
                    "-CAfile", root, "-verify_return_error", "-alpn", "http/1.1", "-groups", groups, "-ign_eof",
                ], input: "GET /ping HTTP/1.1\r\nHost: \(Self.host)\r\n\r\n")
        }
        let connections = server.connections()
        #expect(result.output.contains("Verify return code: 0 (ok)"), "\(result.output)\n\(result.error)")
        #expect(result.output.contains("TLSv1.3") && result.output.contains("TLS_AES_128_GCM_SHA256"))
        #expect(result.output.contains("ALPN protocol: http/1.1"))
        #expect(result.output.contains("HTTP/1.1 200 OK") && result.output.contains("pong"))
        #expect(connections.count == 1 && connections.first?.request.hasPrefix("GET /ping HTTP/1.1") == true)
        #expect(connections.first?.negotiation?.group == group)
        #expect(connections.first?.negotiation?.usedHelloRetryRequest == retry)
        #expect(connections.first?.negotiation?.serverName == Self.host)
    }

    @Test("curl fetches /ping over HTTPS, verifying the chain for Apple's host name")
    func curl() throws {
        let curl = try External.require(ExternalProcess.find("curl"), "curl is not installed")
        let pki = try TestPKI()
        let server = try TestHTTPSServer(configuration: pki.configuration(), connections: 1)
        let result = try withRoot(pki) { root in
            try ExternalProcess.run(
                curl,
                [
                    "--silent", "--show-error", "--max-time", "20", "--cacert", root, "--resolve",
                    "\(Self.host):\(server.port):127.0.0.1", "https://\(Self.host):\(server.port)/ping",
                ])
        }
        let connections = server.connections()
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "pong\n")
        #expect(connections.first?.negotiation?.applicationProtocol == "http/1.1")
        #expect(connections.first?.request.contains("GET /ping HTTP/1.1") == true)
    }

    @Test("curl refuses the certificate for a name it does not cover, and the server sees why")
    func curlWrongName() throws {
        let curl = try External.require(ExternalProcess.find("curl"), "curl is not installed")
        let pki = try TestPKI()
        let server = try TestHTTPSServer(configuration: pki.configuration(), connections: 1)
        let result = try withRoot(pki) { root in
            try ExternalProcess.run(
                curl,
                [
                    "--silent", "--max-time", "20", "--cacert", root, "--resolve",
                    "www.example.com:\(server.port):127.0.0.1", "https://www.example.com:\(server.port)/ping",
                ])
        }
        let connections = server.connections()
        #expect(result.status != 0)
        #expect(connections.first?.error == .alertSent(.unrecognizedName, reason: "no certificate for www.example.com"))
    }

    /// Python's default context checks the chain, the host name, the dates and the key usage.
    @Test("Python ssl (and requests, when installed) fetches /ping")
    func python() throws {
        let python = try External.require(ExternalProcess.find("python3"), "python3 is not installed")
        let pki = try TestPKI()
        let hasRequests = (try? ExternalProcess.run(python, ["-c", "import requests"]).status) == 0
        let server = try TestHTTPSServer(configuration: pki.configuration(), connections: hasRequests ? 2 : 1)
        let script = """
            import socket, ssl, sys
            root, port, host = sys.argv[1], int(sys.argv[2]), sys.argv[3]
            context = ssl.create_default_context(cafile=root)
            context.set_alpn_protocols(["http/1.1"])
            with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
                with context.wrap_socket(raw, server_hostname=host) as tls:
                    tls.sendall(b"GET /ping HTTP/1.1\\r\\nHost: " + host.encode() + b"\\r\\n\\r\\n")
                    answer = b""
                    while True:
                        chunk = tls.recv(4096)
                        if not chunk:
                            break
                        answer += chunk
                    print(tls.version(), tls.selected_alpn_protocol(), tls.cipher()[0])
                    print(answer.decode())
            if len(sys.argv) > 4:
                real = socket.getaddrinfo
                socket.getaddrinfo = lambda name, *rest, **named: real("127.0.0.1" if name == host else name, *rest, **named)
                import requests
                response = requests.get(f"https://{host}:{port}/ping", verify=root, timeout=20)
                print("requests", response.status_code, response.text.strip())
            """
        let result = try withRoot(pki) { root in
            try ExternalProcess.run(
                python, ["-c", script, root, "\(server.port)", Self.host] + (hasRequests ? ["requests"] : []))
        }
        let connections = server.connections()
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("TLSv1.3 http/1.1 TLS_AES_128_GCM_SHA256"), "\(result.output)")
        #expect(result.output.contains("HTTP/1.1 200 OK") && result.output.contains("pong"))
        if hasRequests {
            #expect(result.output.contains("requests 200 pong"), "\(result.output)")
            #expect(connections.count == 2)
        }
    }
}
