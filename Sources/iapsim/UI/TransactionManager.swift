import Foundation
import IAPSimHTTP
import IAPSimJSON
import IAPSimKit

/// The server side of `iapsim ui`: serves the page, answers its reads and runs its buttons,
/// every one through `PageCommands`, so what a button does is what its command line does.
///
/// Security: it listens on loopback only; every request must name this server in `Host`
/// (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`), else 421, which stops a DNS-rebinding
/// page (a name of the attacker's that resolves to 127.0.0.1). No secret is served: `iapsim ui`
/// prints a sign-in address with a one-time secret (`/login?secret=…`), which the browser
/// trades once for this run's session token in an `HttpOnly; SameSite=Strict` cookie; the
/// page, its script and every `/api/` request need that cookie (else 401 or 403), so another
/// local process, or another user's, reads nothing from `GET /`. A POST must also come from
/// this origin (`Origin`, `Sec-Fetch-Site`) with `Content-Type: application/json`, else 403
/// or 415.
///
/// Customers: `location` names the customer `iapsim ui` started with (`--account`), the
/// picker's first choice. After that the choice is the page's: each read, page of rows and
/// version request names its customer in `?account=NAME`, each action carries `--account NAME`
/// in its words, and the server runs the command for that customer of the same state.
struct TransactionManager: Sendable {
    let commands: PageCommands
    let location: StateLocation
    /// This run's session token, 256 random bits in hex: the cookie's value.
    let token: String
    /// The one-time secret of the sign-in address, spent by its first use.
    let signIn: SignInSecret
    /// The port listened on, which `Host` and `Origin` must name.
    let port: UInt16
    /// The `Host` values that name this server: its loopback names, as `serve` checks them.
    let hosts: HostPolicy
    /// Whether to stop a long poll early (the server is stopping).
    var stopping: @Sendable () -> Bool = { false }
    /// The longest a request waits for the state to change before it answers the same version.
    var longestWait = 15.0
    /// The version polls waiting now, bounded so they never hold all the connections.
    var longPolls = LongPolls()

    private let transactions = RowCache(words: ["transactions"], member: "transactions")
    private let notifications = RowCache(words: ["notifications"], member: "notifications")

    init(commands: PageCommands, location: StateLocation, token: String, signIn: SignInSecret, port: UInt16) {
        self.commands = commands
        self.location = location
        self.token = token
        self.signIn = signIn
        self.port = port
        self.hosts = HostPolicy(port: port)
    }

    /// The address `iapsim ui` prints: the page, signing this browser in on its first use.
    var signInURL: String { "http://127.0.0.1:\(port)/login?secret=\(signIn.secret)" }

    /// The session cookie's name: cookies are kept per host, not per port, so each run's
    /// name carries its port and two `iapsim ui` on one machine keep theirs apart.
    var cookieName: String { "iapsim-\(port)" }

    /// Whether the request carries this run's session cookie.
    func isSignedIn(_ request: HTTPRequest) -> Bool {
        for field in (request.headers["Cookie"] ?? "").split(separator: ";") {
            let pair = field.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "="), pair[..<equals] == cookieName else { continue }
            if Self.sameSecret(String(pair[pair.index(after: equals)...]), token) { return true }
        }
        return false
    }

    /// A fresh token: 32 bytes from the system's cryptographic generator.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The origins a state-changing request may come from.
    var allowedOrigins: Set<String> { Set(hosts.allowed.map { "http://" + $0 }) }

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        guard hosts.allows(request.headers["Host"]) else {
            return Self.refuse(421, "this server answers only to http://\(hosts.primary)/ (Host)")
        }
        let path = request.pathComponents
        if path == ["login"] { return login(request) }
        if path.first != "api" {
            guard request.method == "GET" || request.method == "HEAD" else { return Self.refuse(405, "GET only") }
            guard isSignedIn(request) else {
                return Self.refuse(
                    401, "not signed in: open the address iapsim ui printed (http://127.0.0.1:\(port)/login?secret=…)")
            }
            switch path {
            case []:
                // A customer's name is letters, digits, '.', '_' and '-' only: nothing to escape.
                let html = PageSource.html.replacingOccurrences(of: "{{ACCOUNT}}", with: location.account)
                return page(html, "text/html")
            default:
                // The style sheet and the scripts, as they are.
                guard path.count == 1, path[0] != "index.html",
                    let file = PageSource.files.first(where: { $0.name == path[0] })
                else { return Self.refuse(404, "no such page") }
                return page(file.text, file.type)
            }
        }
        guard isSignedIn(request) else {
            return Self.refuse(403, "no session cookie: only the page iapsim ui serves, once signed in, may ask")
        }
        if request.method == "POST" {
            if let origin = request.headers["Origin"], !allowedOrigins.contains(origin.lowercased()) {
                return Self.refuse(403, "cross-origin request from \(origin)")
            }
            if let site = request.headers["Sec-Fetch-Site"], site != "same-origin", site != "none" {
                return Self.refuse(403, "cross-site request (\(site))")
            }
            guard request.headers["Content-Type"]?.lowercased().hasPrefix("application/json") == true else {
                return Self.refuse(415, "expected Content-Type: application/json")
            }
            guard path == ["api", "action"] else { return Self.refuse(404, "no such action endpoint") }
            return action(request.body)
        }
        guard request.method == "GET" else { return Self.refuse(405, "GET, or POST to /api/action") }
        let account = request.queryValue("account") ?? location.account
        let accountWords: [String]
        do {
            accountWords = try PageCommands.accountWords(account)
        } catch {
            return Self.refuseAccount(error)
        }
        let customer = location.forAccount(account)
        switch (path.count, path.dropFirst().first) {
        case (2, "version"): return version(since: request.queryValue("since"), customer)
        case (3, "read"): return read(path[2], request, accountWords)
        case (3, "rows") where path[2] == "transactions": return rows(transactions, request, customer, accountWords)
        case (3, "rows") where path[2] == "notifications": return rows(notifications, request, customer, accountWords)
        default: return Self.refuse(404, "no such endpoint")
        }
    }

    /// `GET /login?secret=S`: the first request with the printed secret gets the session
    /// cookie and goes on to the page; the secret is spent, so the address, once used, signs
    /// nobody else in. A browser already signed in goes on to the page whatever it sends.
    private func login(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" else { return Self.refuse(405, "GET only") }
        if !isSignedIn(request) {
            guard signIn.spend(request.queryValue("secret") ?? "") else {
                return Self.refuse(
                    403, "this sign-in address is wrong or already used: restart iapsim ui for a new one")
            }
        }
        return HTTPResponse(
            status: HTTPStatus(303),
            headers: HTTPHeaders(
                Self.securityHeaders + [
                    ("Location", "/"),
                    ("Set-Cookie", "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"),
                    ("Content-Length", "0"),
                ]), body: [])
    }

    /// A `?account=` that names no possible customer: the command line's usage error, exit 64,
    /// having run nothing.
    private static func refuseAccount(_ refusal: PageCommands.Refusal) -> HTTPResponse {
        var members: [(String, JSONValue)] = [("error", .string(refusal.message))]
        if case .object(let outcome) = PageCommands.usage(refusal.message).json { members += outcome }
        return HTTPResponse(
            status: HTTPStatus(400), headers: HTTPHeaders(securityHeaders + [("Content-Type", "application/json")]),
            body: JSONValue.object(members).bytes(compact: true))
    }

    /// `POST /api/action {"argv": ["refund", "3"]}`: runs `iapsim refund 3 --json`.
    private func action(_ body: [UInt8]) -> HTTPResponse {
        let list = (try? JSONValue.parse(body))?["argv"]?.arrayValue ?? []
        let words = list.compactMap(\.stringValue)
        guard !words.isEmpty, words.count == list.count, words.count <= 32 else {
            return Self.refuse(400, PageCommands.Refusal.empty.message)
        }
        do {
            let outcome = try commands.run(words, allowed: PageCommands.actions)
            return .json(outcome.json.bytes(compact: true))
        } catch {
            return Self.refuse(error == .empty ? 400 : 403, error.message)
        }
    }

    /// The views the page reads, each one command's `--json`.
    private func read(_ name: String, _ request: HTTPRequest, _ accountWords: [String]) -> HTTPResponse {
        let words: [String]
        switch name {
        case "accounts": words = ["accounts"]
        case "products": words = ["list"]
        case "status": words = ["status"]
        case "clock": words = ["clock"]
        case "settings": words = ["settings"]
        case "triggers": words = ["trigger", "--list"]
        case "buy-options": words = ["help", "buy"]
        case "jws":
            guard let id = request.queryValue("transaction") else {
                return Self.refuse(400, "expected ?transaction=ID")
            }
            words = ["jws", "transaction", id]
        case "notification":
            guard let uuid = request.queryValue("uuid") else { return Self.refuse(400, "expected ?uuid=UUID") }
            words = ["notifications", "show", uuid]
        default: return Self.refuse(404, "no such view")
        }
        do {
            return .json(
                try commands.run(words + accountWords, allowed: PageCommands.reads).json.bytes(compact: true))
        } catch {
            return Self.refuse(400, error.message)
        }
    }

    /// `GET /api/rows/transactions?offset=0&limit=50&sort=purchaseDate&order=desc&q=book&eq.state=revoked`.
    private func rows(_ cache: RowCache, _ request: HTTPRequest, _ customer: StateLocation, _ accountWords: [String])
        -> HTTPResponse
    {
        var query = RowCache.Query()
        query.text = request.queryValue("q") ?? ""
        query.sortKey = request.queryValue("sort").flatMap { $0.isEmpty ? nil : $0 }
        query.descending = request.queryValue("order") == "desc"
        query.offset = request.queryValue("offset").flatMap(Int.init) ?? 0
        query.limit = request.queryValue("limit").flatMap(Int.init) ?? 50
        for (name, value) in request.query where name.hasPrefix("eq.") && !value.isEmpty {
            query.equal[String(name.dropFirst(3))] = value
        }
        switch cache.page(query, at: StateVersion(customer), extra: accountWords, commands: commands) {
        case .success(let value): return .json(value.bytes(compact: true))
        case .failure(let failure):
            let body: JSONValue =
                failure.outcome?.json
                ?? .object([("exitCode", .int(64)), ("messages", .array([.string(failure.message)]))])
            return .json(body.bytes(compact: true), status: 500)
        }
    }

    /// Reads the transactions and the notifications once, so the page's first load finds
    /// them ready: `iapsim ui` calls it before it prints its address.
    func warm() {
        let now = StateVersion(location)
        let words = ["--account", location.account]
        for cache in [transactions, notifications] {
            _ = cache.page(RowCache.Query(), at: now, extra: words, commands: commands)
        }
    }

    /// `GET /api/version?since=V&account=NAME`: the customer's version of the state, once it differs from `since` (or at
    /// once without it), or `since` again after `longestWait` seconds. It looks every 50 ms:
    /// a few `stat` calls, bounded in time, so a shell's change shows within a tenth of a second.
    /// Past `longPolls.limit` waiting, one is answered at once with `"busy": true`, and the
    /// page waits two seconds before it asks again.
    private func version(since: String?, _ customer: StateLocation) -> HTTPResponse {
        let started = Date()
        var now = StateVersion(customer)
        let waits = since != nil && now.text == since
        if waits {
            guard longPolls.enter() else {
                return .json(
                    JSONValue.object([("version", .string(now.text)), ("busy", .bool(true))]).bytes(compact: true))
            }
        }
        defer { if waits { longPolls.leave() } }
        while let since, now.text == since, Date().timeIntervalSince(started) < longestWait, !stopping() {
            usleep(50_000)
            now = StateVersion(customer)
        }
        return .json(JSONValue.object([("version", .string(now.text))]).bytes(compact: true))
    }

    private func page(_ text: String, _ type: String) -> HTTPResponse {
        HTTPResponse(
            status: .ok,
            headers: HTTPHeaders(
                Self.securityHeaders + [
                    ("Content-Type", type + "; charset=utf-8"),
                    (
                        "Content-Security-Policy",
                        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
                    ),
                ]), body: Array(text.utf8))
    }

    private static let securityHeaders: [(String, String)] = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]

    private static func refuse(_ code: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: HTTPStatus(code), headers: HTTPHeaders(securityHeaders + [("Content-Type", "application/json")]),
            body: JSONValue.object([("error", .string(message))]).bytes(compact: true))
    }

    /// Compares the token in time that does not depend on where they differ.
    static func sameSecret(_ given: String, _ secret: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(secret.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// The sign-in address's secret: good once, compared in constant time.
final class SignInSecret: @unchecked Sendable {
    let secret: String
    private let lock = NSLock()
    private var spent = false

    init(_ secret: String = TransactionManager.makeToken()) { self.secret = secret }

    /// Whether `given` is the secret and was not used before; a match spends it.
    func spend(_ given: String) -> Bool {
        lock.withLock {
            guard !spent, TransactionManager.sameSecret(given, secret) else { return false }
            spent = true
            return true
        }
    }
}
