import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `iapsim serve` run as a process and reached over a socket, as a page rebound to 127.0.0.1
/// or a client posting large bodies reaches it.
@Suite struct ServeSecurityTests {
    /// A running `serve` over a fresh state, stopped (SIGTERM) at the end.
    final class Server {
        let process: Process
        let port: UInt16
        let state = Harness.temporaryPath("iapsim-serve-")

        init(_ extra: [String] = []) throws {
            let portFile = state + ".port"
            process = Process()
            process.executableURL = URL(fileURLWithPath: EndToEndTests.binary)
            process.arguments = ["serve", "--port", "0", "--port-file", portFile] + extra
            process.currentDirectoryURL = URL(fileURLWithPath: Harness.repositoryRoot)
            var environment = ProcessInfo.processInfo.environment
            environment["IAPSIM_STATE_DIR"] = state
            environment.removeValue(forKey: "IAPSIM_CATALOG")
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            var port: UInt16?
            for _ in 0..<200 where port == nil {
                port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap {
                    UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                if port == nil { usleep(50_000) }
            }
            self.port = try #require(port)
        }

        /// SIGKILL: the test's threads may have SIGTERM blocked, which a child inherits; how
        /// `serve` stops is not what these tests look at.
        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Sends `head` (and `body`), reads until the server closes or 5 seconds pass; the status.
        func exchange(_ head: String, body: [UInt8] = []) -> (status: Int, text: String) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var time = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { return (0, "") }
            let bytes = Array(head.utf8) + body
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                received += buffer[0..<count]
                if let text = String(bytes: received, encoding: .utf8), text.contains("\r\n\r\n"),
                    Self.isComplete(text)
                {
                    break
                }
            }
            let text = String(decoding: received, as: UTF8.self)
            let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return (status, text)
        }

        private static func isComplete(_ text: String) -> Bool {
            guard let range = text.range(of: "\r\n\r\n") else { return false }
            let head = text[..<range.lowerBound].lowercased()
            guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            else { return false }
            return text[range.upperBound...].utf8.count >= length
        }
    }

    static let token: String = {
        func segment(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let exp = Int(Date().timeIntervalSince1970) + 3000
        return "Bearer " + segment(#"{"alg":"ES256","kid":"K","typ":"JWT"}"#) + "."
            + segment(#"{"iss":"i","bid":"com.example.app","aud":"appstoreconnect-v1","exp":\#(exp)}"#) + "."
            + segment("unsigned")
    }()

    /// A page of evil.example, rebound to 127.0.0.1, reached every customer's data with the
    /// default unsigned token, and /verifyReceipt too: `Host` names the server, else 421.
    @Test(arguments: ["evil.example", "127.0.0.1.nip.io", "localhost.evil.example", nil])
    func aRequestNamingAnotherHostIsMisdirected(name: String?) throws {
        let server = try Server()
        let host = name.map { "Host: \($0):\(server.port)\r\n" } ?? ""
        let version = name == nil ? "HTTP/1.0" : "HTTP/1.1"
        let body = #"{"startDate":0,"endDate":1}"#
        let history = server.exchange(
            "POST /inApps/v1/notifications/history \(version)\r\n\(host)Authorization: \(Self.token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(history.status == 421, "\(history.text)")
        let test = server.exchange(
            "POST /inApps/v1/notifications/test \(version)\r\n\(host)Authorization: \(Self.token)\r\n\r\n")
        #expect(test.status == 421)
        let receipt = #"{"receipt-data":"MA=="}"#
        let legacy = server.exchange(
            "POST /verifyReceipt \(version)\r\n\(host)Content-Length: \(receipt.utf8.count)\r\n\r\n" + receipt)
        #expect(legacy.status == 421)
    }

    @Test(arguments: ["127.0.0.1", "localhost", "[::1]"])
    func theServersOwnNamesAreAnswered(name: String) throws {
        let server = try Server()
        let receipt = #"{"receipt-data":"MA=="}"#
        let legacy = server.exchange(
            "POST /verifyReceipt HTTP/1.1\r\nHost: \(name):\(server.port)\r\nConnection: close\r\n"
                + "Content-Length: \(receipt.utf8.count)\r\n\r\n" + receipt)
        #expect(legacy.status == 200)
        #expect(legacy.text.contains("\"status\":21002"))
    }

    /// Every route took 32 MiB, read before the token was checked: now 1 MiB off /verifyReceipt,
    /// chosen from the request line, and refused before a byte of the body is sent.
    @Test func aBodyPastOneMebibyteIsRefusedBeforeItIsSent() throws {
        let server = try Server()
        let history = server.exchange(
            "POST /inApps/v1/notifications/history HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
                + "Authorization: \(Self.token)\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n")
        #expect(history.status == 413, "\(history.text)")
        let receipt = server.exchange(
            "POST /verifyReceipt HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: \((32 << 20) + 1)\r\n\r\n"
        )
        #expect(receipt.status == 413)
    }

    /// An /inApps body is not read without a token that verifies: 401 at once.
    @Test func anInAppsBodyIsNotReadWithoutAToken() throws {
        let server = try Server()
        let started = Date()
        let answer = server.exchange(
            "POST /inApps/v1/notifications/history HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
                + "Content-Length: 500000\r\n\r\n")
        #expect(answer.status == 401)
        #expect(Date().timeIntervalSince(started) < 4, "answered without waiting for the body")
    }
}
