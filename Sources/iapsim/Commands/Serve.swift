import Foundation
import IAPSimCrypto
import IAPSimHTTP
import IAPSimKit
import IAPSimTLS

struct Serve: CLICommand {
    static let spec = CommandSpec(
        name: "serve", abstract: "Serve the App Store Server API on this machine, from this state.",
        synopsis:
            "[--port N] [--host ADDRESS [--insecure-remote]] [--port-file FILE] "
            + "[--key-file FILE --key-id ID --issuer-id ID]",
        discussion: """
            Answers Apple's App Store Server API (paths, bodies and error codes as Apple's) from
            the state the CLI writes, so a backend's tests run Apple's own client against a
            local, scriptable App Store: Get Transaction Info, Get Transaction History (v1, v2),
            Get All Subscription Statuses, Get Refund History, Look Up Order ID, Send Consumption
            Information, Request a Test Notification and its status, Get Notification History,
            Extend a Subscription Renewal Date (one, or all active subscribers and its status),
            Get App Transaction Info, Set App Account Token and Finish Transaction; and the
            legacy POST /verifyReceipt (no token; receipt-data from 'iapsim receipt --base64',
            password the shared-secret setting, Apple's status codes). A purchase
            made with 'iapsim buy' in another shell is visible to the next request. Look Up
            Order ID answers only outside Sandbox (--environment Production), as Apple's does.
            Signed items are signed as 'iapsim jws' signs them. Requests need 'Authorization:
            Bearer <ES256 JWT>' with aud appstoreconnect-v1, bid the bundle id and exp within
            the hour (an iat, if any, no later than a minute from now and at most an hour
            before exp); with --key-file (the .p8 App Store Connect gives), the signature must
            verify with that key, else any well-formed token is accepted and the server says
            so. It listens on loopback addresses only (127.0.0.1 by default; 'localhost',
            ::1): another --host is refused (exit 64) unless --insecure-remote is given with
            --key-file, since the API is plain HTTP and its writes change the state. It prints
            'Listening on http://HOST:PORT' (--port 0, the default, picks a free port;
            --port-file writes it) and serves until SIGINT or SIGTERM, then exits 0. Every
            request must name the server in Host (127.0.0.1:PORT, localhost:PORT or [::1]:PORT;
            the --host value too when it is an address or with --insecure-remote), else 421,
            /verifyReceipt included: a page rebound to 127.0.0.1 reads nothing. Bodies are
            limited by route from the request line, before they are read (1 MiB, /verifyReceipt
            32 MiB; 413 past it); an /inApps body is read only once its token verifies (else
            401); and the server holds at most 65 MiB of requests at once (503 with
            Retry-After past it). A request
            the server cannot answer (a state it cannot read) gets 500 with Apple's
            GeneralInternalError and no detail; the detail goes to standard error. Errors and
            delays armed with 'iapsim server-error' answer the requests they match, after
            the token is checked. Each request is logged on standard error as one line (method,
            path, status, milliseconds; a 401 says why, also in its WWW-Authenticate header, while
            its body stays Apple's); --quiet silences it. 'iapsim token' prints a token to try it
            with curl. Tokens are good on the simulated clock or the real one, and the Date
            header is the simulated time, as Retry-After and the signed dates are. Used as a
            plain HTTP proxy (HTTP_PROXY=http://127.0.0.1:PORT) it answers OCSP (RFC 6960) for
            http://ocsp.iapsim.test/, the responder iapsim's certificates name, so a verifier
            with online checks on accepts iapsim's signed data ('iapsim help certs'); any other
            host but serve's own is refused (403): nothing is forwarded.
            """,
        arguments: [],
        options: [
            .certs,
            .environment,
            .port,
            OptionSpec(
                name: "host", valueName: "ADDRESS", help: "The address to listen on (default 127.0.0.1): loopback."),
            OptionSpec(
                name: "insecure-remote",
                help: "With --key-file: let --host be an address other machines reach, over plain HTTP."),
            OptionSpec(
                name: "port-file", valueName: "FILE",
                help: "Write the port there once listening, for scripts; a symlink there is refused (exit 73)."),
            OptionSpec(
                name: "key-file", valueName: "FILE",
                help: "The developer's .p8 key: bearer tokens must be signed with it."),
            OptionSpec(name: "key-id", valueName: "ID", help: "With --key-file: the key's id (kid)."),
            OptionSpec(name: "issuer-id", valueName: "ID", help: "With --key-file: the issuer id (iss)."),
        ],
        examples: ["iapsim serve --port 0 --port-file \"${TMPDIR:-/tmp}/iapsim.port\" & sleep 1; kill %1"])

    let host: String
    /// `--insecure-remote`: a --host other than a loopback address may be listened on.
    let allowsRemote: Bool
    let port: UInt16
    let portFile: String?
    let keyFile: String?
    let keyID: String?
    let issuerID: String?

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
        port = try words.port()
        if words.value("key-id") != nil || words.value("issuer-id") != nil, words.value("key-file") == nil {
            throw words.error("--key-id and --issuer-id go with --key-file")
        }
        host = words.value("host") ?? "127.0.0.1"
        allowsRemote = words.flag("insecure-remote")
        if allowsRemote, words.value("key-file") == nil {
            throw words.error(
                "--insecure-remote needs --key-file: off loopback only tokens signed with your key are accepted")
        }
        if !allowsRemote, Self.isAddress(host), !Loopback.isLoopback(host) {
            throw words.error(Self.notLoopback(host))
        }
        portFile = words.value("port-file")
        keyFile = words.value("key-file")
        keyID = words.value("key-id")
        issuerID = words.value("issuer-id")
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        var verifier = BearerTokenVerifier()
        if let file = keyFile {
            let publicKey = try APIKeyFile.read(file, in: context, command: Self.spec.name).publicKey
            verifier = BearerTokenVerifier(publicKey: publicKey, keyID: keyID, issuerID: issuerID)
        }
        let signer = try context.signer()
        var api = AppStoreServerAPI(session: session, signer: signer, verifier: verifier, realNow: context.now)
        let console = context.console
        api.internalError = { error in console.error("Error: a request was answered 500: \(error)") }
        var legacy = VerifyReceiptEndpoint(session: session, signer: signer)
        legacy.internalError = { error in console.error("Error: /verifyReceipt was answered 21009: \(error)") }
        let server: HTTPServer
        // Never unsigned tokens off loopback: remote clients need the key as well as the flag.
        let remote = allowsRemote && verifier.publicKey != nil
        var configuration = HTTPServer.Configuration(
            host: host, port: port, allowsRemoteClients: remote, bufferBudget: Self.bufferBudget)
        // The most any route takes (/verifyReceipt); each route's own limit is chosen from its
        // request line (`ServerAdmission`).
        configuration.limits.maxBodyBytes = ServerAdmission.receiptBodyLimit
        let hosts = ServerAdmission.Hosts(
            port: port, extraHosts: remote || Self.isAddress(host) ? [host] : [],
            acceptsAny: remote && Self.isWildcard(host))
        let admission = ServerAdmission(hosts: hosts, api: api)
        let log = RequestLog(console: context.console, quiet: context.options.quiet)
        let tunnels = try Self.tunnelPolicy(context)
        let proxy = PlainProxy(
            responder: OCSPResponder(
                directory: try context.certsDirectory(), realNow: context.now,
                simulatedNow: { [session] in try? session.simulatedNow() }),
            listeningHost: host)
        do {
            server = try HTTPServer(configuration, tunnels: tunnels, admission: admission.admit) { [api, legacy] http in
                let started = ContinuousClock.now
                // As a plain HTTP proxy: iapsim's OCSP responder, or 403 (Serve+PlainProxy.swift).
                if let (answer, reason) = proxy.answer(http) {
                    log.record(http, status: answer.status.code, since: started, reason: reason)
                    return answer
                }
                // Through a tunnel the host names the service and the environment (Apple's hosts);
                // data of the other environment is answered as Apple answers it.
                let host = http.tunnelHost.flatMap { AppleHost(rawValue: $0) }
                if let host, host.servesServerAPI == (http.pathComponents == ["verifyReceipt"]) {
                    log.record(http, status: 404, since: started, reason: "not a path of \(host.rawValue)")
                    return .status(.notFound)
                }
                // Apple's legacy endpoint: no bearer token, every answer 200 with a status.
                if http.pathComponents == ["verifyReceipt"] {
                    let body = legacy.respond(method: http.method, body: http.body, host: host)
                    log.record(http, status: 200, since: started)
                    return HTTPResponse.json(body, status: .ok)
                }
                let response = api.respond(
                    APIRequest(
                        method: http.method, pathComponents: http.pathComponents, query: http.query,
                        authorization: http.headers["Authorization"], body: http.body, host: host))
                // An armed delay (`iapsim server-error delay`) holds this connection's answer.
                if response.delay > 0 { Self.sleep(seconds: response.delay) }
                var answer =
                    response.body.isEmpty
                    ? HTTPResponse(status: HTTPStatus(response.status))
                    : HTTPResponse.json(response.body, status: HTTPStatus(response.status))
                for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) {
                    answer.headers.add(name: name, value: value)
                }
                log.record(http, status: response.status, since: started, reason: response.reason)
                return answer
            }
        } catch .notLoopback {
            throw UsageError(Self.notLoopback(host), command: Self.spec.name)
        } catch {
            throw UsageError(error.localizedDescription, command: Self.spec.name)
        }
        hosts.listening(on: server.port)
        proxy.listeningPort.value = Int(server.port)
        context.console.out("Listening on http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)")
        if verifier.publicKey == nil {
            context.console.notice("Warning: no --key-file: any well-formed bearer token is accepted")
        }
        if allowsRemote, !Loopback.isLoopback(host) {
            context.console.notice(
                "Warning: --insecure-remote: \(host) may be reached from other machines, over plain HTTP")
        }
        try context.writePortFile(portFile, of: server)
        ListenSignals.install()
        while !ListenSignals.stopRequested { ListenSignals.sleep(seconds: 0.2) }
        server.stop()
        server.waitUntilStopped()
        return Report()
    }

    /// One line per request on standard error — method, path, status, milliseconds, and why a
    /// 401 was refused — unless `--quiet`.
    struct RequestLog: Sendable {
        let console: Console
        let quiet: Bool

        func record(_ request: HTTPRequest, status: Int, since started: ContinuousClock.Instant, reason: String? = nil)
        {
            guard !quiet else { return }
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            let why = reason.map { " (\($0))" } ?? ""
            console.writeError(
                "\(TerminalText.escaped(request.method)) \(TerminalText.escaped(request.path)) \(status) \(String(format: "%.1f", milliseconds)) ms\(why)\n"
            )
        }
    }

    /// `CONNECT` to Apple's hosts at port 443 ends here, in TLS with the certs folder's TLS
    /// chain (made on first use); any other is refused (403): iapsim never opens a tunnel to
    /// the network, nor to another local port.
    static func tunnelPolicy(_ context: CommandContext) throws -> HTTPServer.TunnelPolicy {
        let chain = try TLSServerChain.loadOrCreate(
            in: try context.certsDirectory(), lockTimeout: try context.stateStore().location.lockTimeout)
        let identity = TLSIdentity(certificateChain: chain.certificateChain, privateKey: chain.serverKey)
        // A client that sends no name (SNI) still gets the certificate; one naming another host is refused.
        let tls = TLSServerConfiguration { name in
            name.map { AppleHost(rawValue: $0.lowercased()) != nil } ?? true ? identity : nil
        }
        return { host, port in AppleHost(host: host, port: port) == nil ? nil : tls }
    }

    /// The request bytes the server holds at once, over every connection: two of the largest
    /// `/verifyReceipt` bodies; past it, 503 with `Retry-After`.
    static let bufferBudget = BufferBudget(capacity: 2 * ServerAdmission.receiptBodyLimit + (1 << 20))

    private static func sleep(seconds: Double) {
        var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&remaining, &left) != 0, errno == EINTR { remaining = left }
    }

    /// Whether `host` is written as an IPv4 or IPv6 address (a name is judged once resolved).
    private static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
    }

    /// Whether `host` is an address that means every interface (`0.0.0.0`, `::`).
    private static func isWildcard(_ host: String) -> Bool {
        ["0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"].contains(host) || host.isEmpty
    }

    private static func notLoopback(_ host: String) -> String {
        "--host \(host): not a loopback address; the API is plain HTTP and its writes change the state, "
            + "so other machines may reach it only with --insecure-remote and --key-file"
    }
}
