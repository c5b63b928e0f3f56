import Foundation
import IAPSimHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// HTTPBench [PORT [BODY_BYTES]]: serves BODY_BYTES (default 2048) of JSON-ish text on
// 127.0.0.1:PORT (default 0, any free one), prints the port, and stops on SIGINT or SIGTERM.
let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap { UInt16($0) } ?? 0
let bodyBytes = arguments.dropFirst().first.flatMap { Int($0) } ?? 2048
let body = [UInt8](repeating: UInt8(ascii: "x"), count: bodyBytes)

// Block the signals before the server starts its threads, which inherit the mask, so that
// only `sigwait` below receives them: the way `iapsim serve` can stop cleanly.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &signals, nil)

do {
    let server = try HTTPServer(HTTPServer.Configuration(port: port)) { _ in
        HTTPResponse(headers: ["Content-Type": "application/json"], body: body)
    }
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    var received: Int32 = 0
    sigwait(&signals, &received)
    server.stop()
} catch {
    FileHandle.standardError.write(Data("HTTPBench: \(error.localizedDescription)\n".utf8))
    exit(1)
}
