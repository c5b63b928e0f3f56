import Foundation
import IAPSimHTTP
import IAPSimJSON
import IAPSimKit
import Testing

@testable import iapsim

/// Words that prepare a state: the monthly subscription bought, its price raised.
private let boughtMonthly = ["buy", "com.example.app.pro.monthly"]
private let raisedPrice = ["price-increase", "com.example.app.pro.monthly", "3.99"]

/// `iapsim ui`'s server, answered in-process: who may use it, and that every button is the
/// command line's own command.
@Suite struct TransactionManagerTests {
    static let port: UInt16 = 41_234

    /// A manager over the harness's state, as `iapsim ui` makes one.
    static func manager(_ harness: Harness, account: String? = nil) throws -> TransactionManager {
        let context = Context(
            environment: harness.environment, currentDirectory: harness.stateDirectory,
            now: { Date(timeIntervalSince1970: 1_768_478_400) }, platform: .linux)
        var options = GlobalOptions()
        options.account = account
        let commands = PageCommands(options: options, context: context)
        let location = try StateLocation.resolve(stateDirectory: nil, account: account, context: context)
        var manager = TransactionManager(
            commands: commands, location: location, token: "t0ken", signIn: SignInSecret("s3cret"), port: port)
        manager.longestWait = 0.3
        return manager
    }

    static func request(
        _ target: String, method: String = "GET", host: String? = "127.0.0.1:\(port)", token: String? = "t0ken",
        headers: [(String, String)] = [], body: String = ""
    ) throws -> HTTPRequest {
        var fields = headers
        if let host { fields.append(("Host", host)) }
        if let token { fields.append(("Cookie", "other=1; iapsim-\(port)=\(token)")) }
        return try HTTPRequest(method: method, target: target, headers: HTTPHeaders(fields), body: Array(body.utf8))
    }

    static func action(_ argv: [String], headers: [(String, String)] = [("Content-Type", "application/json")])
        throws -> HTTPRequest
    {
        let body = JSONValue.object([("argv", .array(argv.map(JSONValue.string)))]).serialized()
        return try request("/api/action", method: "POST", headers: headers, body: body)
    }

    static func json(_ response: HTTPResponse) throws -> JSONValue { try JSONValue.parse(response.body) }

    // MARK: Who may use it

    /// A DNS-rebinding page reaches 127.0.0.1 under a name of its own: `Host` says which.
    @Test(arguments: [
        "evil.example:\(port)", "127.0.0.1:1", "localhost", "localhost.evil.example:\(port)",
        "127.0.0.1.nip.io:\(port)",
    ])
    func aHostOtherThanThisServerIsMisdirected(host: String) throws {
        let manager = try Self.manager(Harness())
        #expect(manager.respond(try Self.request("/", host: host)).status.code == 421)
        #expect(manager.respond(try Self.request("/api/read/clock", host: host)).status.code == 421)
        #expect(manager.respond(try Self.action(["buy", "com.example.app.book"]).withHost(host)).status.code == 421)
    }

    @Test func noHostIsMisdirected() throws {
        let manager = try Self.manager(Harness())
        #expect(manager.respond(try Self.request("/", host: nil)).status.code == 421)
    }

    @Test(arguments: ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)"])
    func thePageIsServedToItsOwnNamesAndHoldsNoSecret(host: String) throws {
        let response = try Self.manager(Harness()).respond(try Self.request("/", host: host))
        #expect(response.status.code == 200)
        let html = String(decoding: response.body, as: UTF8.self)
        #expect(!html.contains("t0ken") && !html.contains("s3cret"), "the page carries no secret")
        #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
    }

    /// Any local process may `GET /`: without the session cookie it gets neither the page, its
    /// script nor any secret.
    @Test(arguments: ["/", "/app.js", "/views.js", "/app.css"])
    func thePageNeedsTheSessionCookie(path: String) throws {
        let manager = try Self.manager(Harness())
        for token in [nil, "", "t0ke", "T0KEN"] as [String?] {
            let response = manager.respond(try Self.request(path, token: token))
            #expect(response.status.code == 401)
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(!body.contains("t0ken") && !body.contains("s3cret"))
            #expect(body.contains("login?secret="), "it says how to sign in")
        }
        #expect(manager.respond(try Self.request(path)).status.code == 200)
    }

    /// The page is served by the names it links to, and nothing else beside the API.
    @Test(arguments: ["/index.html", "/nope.js", "/app.js/x", "/Views.js"])
    func onlyThePagesOwnFilesAreServed(path: String) throws {
        let manager = try Self.manager(Harness())
        #expect(manager.respond(try Self.request(path)).status.code == 404)
    }

    /// The printed address signs one browser in, once: the cookie is `HttpOnly` and
    /// `SameSite=Strict`, named for this port; the secret is then spent.
    @Test func theSignInAddressWorksOnceAndSetsAStrictCookie() throws {
        let manager = try Self.manager(Harness())
        #expect(manager.signInURL == "http://127.0.0.1:\(Self.port)/login?secret=s3cret")
        for wrong in ["", "s3cre", "S3CRET", "s3crett"] {
            #expect(manager.respond(try Self.request("/login?secret=\(wrong)", token: nil)).status.code == 403)
        }
        let first = manager.respond(try Self.request("/login?secret=s3cret", token: nil))
        #expect(first.status.code == 303)
        #expect(first.headers["Location"] == "/")
        #expect(first.headers["Set-Cookie"] == "iapsim-\(Self.port)=t0ken; Path=/; HttpOnly; SameSite=Strict")
        #expect(first.body.isEmpty)
        let again = manager.respond(try Self.request("/login?secret=s3cret", token: nil))
        #expect(again.status.code == 403, "the secret is spent")
        #expect(again.headers["Set-Cookie"] == nil)
        #expect(
            manager.respond(try Self.request("/login?secret=x")).status.code == 303,
            "a browser already signed in goes on to the page")
        #expect(manager.respond(try Self.request("/login?secret=s3cret", method: "POST")).status.code == 405)
    }

    @Test func everyRequestOfTheAPINeedsTheSessionCookie() throws {
        let harness = Harness()
        let manager = try Self.manager(harness)
        for token in [nil, "", "t0ke", "t0kenx", "T0KEN"] as [String?] {
            #expect(manager.respond(try Self.request("/api/read/clock", token: token)).status.code == 403)
            let buy = try Self.request(
                "/api/action", method: "POST", token: token, headers: [("Content-Type", "application/json")],
                body: #"{"argv":["buy","com.example.app.book"]}"#)
            #expect(manager.respond(buy).status.code == 403)
        }
        // The old header is no key: only the cookie is.
        let header = try Self.request("/api/read/clock", token: nil, headers: [("X-IAPSim-Token", "t0ken")])
        #expect(manager.respond(header).status.code == 403)
        #expect(!FileManager().fileExists(atPath: harness.stateDirectory + "/purchases.json"), "nothing was bought")
        #expect(manager.respond(try Self.request("/api/read/clock")).status.code == 200)
    }

    /// A page on another site can POST to 127.0.0.1 (a form, or fetch without reading the
    /// answer): its `Origin`, `Sec-Fetch-Site` or form content type gives it away.
    @Test func aCrossOriginPostChangesNothing() throws {
        let harness = Harness()
        let manager = try Self.manager(harness)
        let refused: [([(String, String)], Int)] = [
            ([("Content-Type", "application/json"), ("Origin", "http://evil.example")], 403),
            ([("Content-Type", "application/json"), ("Origin", "http://127.0.0.1:1")], 403),
            ([("Content-Type", "application/json"), ("Origin", "null")], 403),
            ([("Content-Type", "application/json"), ("Sec-Fetch-Site", "cross-site")], 403),
            ([("Content-Type", "application/json"), ("Sec-Fetch-Site", "same-site")], 403),
            ([("Content-Type", "text/plain")], 415),
            ([("Content-Type", "application/x-www-form-urlencoded")], 415),
        ]
        for (headers, status) in refused {
            #expect(
                manager.respond(try Self.action(["buy", "com.example.app.book"], headers: headers)).status.code
                    == status)
        }
        #expect(!FileManager().fileExists(atPath: harness.stateDirectory + "/purchases.json"), "nothing was bought")
        let own = try Self.action(
            ["buy", "com.example.app.book"],
            headers: [
                ("Content-Type", "application/json"), ("Origin", "http://127.0.0.1:\(Self.port)"),
                ("Sec-Fetch-Site", "same-origin"),
            ])
        #expect(try Self.json(manager.respond(own))["exitCode"] == .number("0"))
    }

    @Test func otherMethodsAndPathsAreRefused() throws {
        let manager = try Self.manager(Harness())
        #expect(manager.respond(try Self.request("/api/action", method: "DELETE")).status.code == 405)
        #expect(manager.respond(try Self.request("/", method: "POST")).status.code == 405)
        #expect(manager.respond(try Self.request("/api/read/purchases")).status.code == 404)
        #expect(manager.respond(try Self.request("/etc/passwd")).status.code == 404)
        #expect(manager.respond(try Self.action(["buy"]).withTarget("/api/other")).status.code == 404)
    }

    // MARK: Every button is a command

    /// The server can run registered commands only, those the page needs, by name: there is
    /// no code path in it that decides what a purchase or a refund does.
    @Test func thePageRunsOnlyRegisteredCommandsOfItsLists() {
        for name in PageCommands.actions.union(PageCommands.reads) {
            #expect(Registry.commands.contains { $0.spec.name == name }, "\(name) is a command of the registry")
        }
        #expect(!PageCommands.actions.contains("reset") && !PageCommands.actions.contains("serve"))
        #expect(!PageCommands.actions.contains("ui") && !PageCommands.actions.contains("listen"))
    }

    @Test(arguments: [
        ["reset", "--all"], ["serve"], ["ui"], ["listen", "--forward-to", "http://127.0.0.1:9/"], ["certs", "rotate"],
        ["--json", "buy", "com.example.app.book"], ["nonsense"], ["transactions", "delete", "1"],
        ["buy", "com.example.app.book", "--state-dir", "/tmp/elsewhere"],
        ["buy", "com.example.app.book", "--catalog", "/tmp/elsewhere"],
        ["buy", "com.example.app.book", "--account", "bob", "--state-dir", "/tmp/elsewhere"],
        ["--account", "bob", "buy", "com.example.app.book"], ["accounts", "remove", "bob", "--yes"],
    ])
    func wordsOutsideTheListsAreRefused(argv: [String]) throws {
        let harness = Harness()
        let response = try Self.manager(harness).respond(try Self.action(argv))
        #expect(response.status.code == 403)
        #expect(!FileManager().fileExists(atPath: "/tmp/elsewhere/purchases.json"))
        #expect(!FileManager().fileExists(atPath: harness.stateDirectory + "/purchases.json"))
    }

    @Test func aBadBodyIsABadRequest() throws {
        let manager = try Self.manager(Harness())
        for body in ["", "{", #"{"argv":[]}"#, #"{"argv":[1]}"#, #"{"argv":"buy"}"#, "[]"] {
            let request = try Self.request(
                "/api/action", method: "POST", headers: [("Content-Type", "application/json")], body: body)
            #expect(manager.respond(request).status.code == 400, "\(body)")
        }
    }

    /// The same state, the same words: the page's answer is the command line's `--json`,
    /// exit status and error line for line.
    @Test(arguments: [
        ["refund", "2"], ["refund", "2", "--reason", "developerIssue"], ["request-refund", "1"], ["refund", "3"],
        ["cancel-subscription", "com.example.app.pro.monthly"], ["expire", "com.example.app.pro.monthly"],
        ["renew", "com.example.app.pro.monthly"], ["clock", "advance", "P1M"], ["buy", "com.example.app.coins100"],
        ["buy", "com.example.app.book", "--outcome", "ask-to-buy"], ["refund", "999"], ["buy", "no.such.product"],
        ["settings", "set", "ask-to-buy", "maybe"], ["price-increase", "com.example.app.pro.monthly", "3.99"],
        ["trigger", "REFUND", "--product", "com.example.app.coins100"],
    ])
    func anActionAnswersWhatTheCommandLinePrints(argv: [String]) throws {
        func prepared() -> Harness {
            let harness = Harness()
            for words in [
                ["clock", "set", "2027-01-01T00:00:00Z"], ["clock", "freeze"], ["buy", "com.example.app.pro.monthly"],
                ["clock", "advance", "P1M"],
            ] {
                _ = harness.run(words)
            }
            return harness
        }
        let cli = prepared().run(argv + ["--json"])
        let page = try Self.json(try Self.manager(prepared()).respond(try Self.action(argv)))
        #expect(page["exitCode"] == .int(cli.status))
        let printed = cli.stdout.isEmpty ? JSONValue.null : try JSONValue.parse(Array(cli.stdout.utf8))
        #expect(Self.withoutUUIDs(page["output"]) == Self.withoutUUIDs(printed))
        let lines = cli.stderr.split(separator: "\n").map { JSONValue.string(String($0)) }
        #expect(page["messages"] == .array(lines))
        #expect(page["exitCode"] != .int(0) || page["output"] != .null, "a command that succeeded printed its JSON")
    }

    /// The forms added beside the buttons: a price increase and the subscriber's answer, a
    /// billing issue resolved, a purchase with a quantity, an offer or an app account token.
    /// Each is prepared by its own words on two equal states and compared the same way.
    @Test(
        arguments: [
            (["price-increase", "com.example.app.pro.monthly", "3.49", "--notify-only"], [boughtMonthly], 0),
            (["price-increase", "com.example.app.pro.monthly", "3.49", "--consent-required"], [boughtMonthly], 0),
            (["price-increase", "com.example.app.pro.monthly", "abc"], [boughtMonthly], 64),
            (["price-increase", "consent", "com.example.app.pro.monthly"], [boughtMonthly, raisedPrice], 0),
            (["price-increase", "decline", "com.example.app.pro.monthly"], [boughtMonthly, raisedPrice], 0),
            (["price-increase", "consent", "com.example.app.pro.monthly"], [boughtMonthly], 64),
            (
                ["resolve", "1"],
                [["settings", "set", "billing-retry", "true"], boughtMonthly, ["clock", "advance", "P10D"]], 0
            ),
            (
                ["resolve", "1"],
                [
                    ["settings", "set", "billing-retry", "true"], ["settings", "set", "grace-period", "true"],
                    boughtMonthly,
                    ["clock", "advance", "P8D"],
                ], 0
            ),
            (["resolve", "1"], [boughtMonthly], 64),
            (["buy", "com.example.app.coins100", "--quantity", "3"], [["buy", "com.example.app.coins100"]], 0),
            (["buy", "com.example.app.coins100", "--quantity", "11"], [], 64),
            (["buy", "com.example.app.book", "--quantity", "2"], [], 64),
            (
                [
                    "buy", "com.example.app.book", "--quantity", "1", "--app-account-token",
                    "0E8F4F4A-5A3B-4C8E-9D1E-2F3A4B5C6D7E", "--outcome", "ask-to-buy",
                ], [], 3
            ),
            (["buy", "com.example.app.book", "--app-account-token", "not-a-uuid"], [], 64),
            (["buy", "com.example.app.pro.monthly", "--offer", "pro.monthly.comeback"], [], 1),
            (["buy", "com.example.app.pro.monthly", "--offer", "pro.monthly.comeback"], [boughtMonthly], 0),
            (
                ["buy", "com.example.app.pro.monthly", "--offer", "pro.monthly.winback", "--quantity", "1"],
                [boughtMonthly, ["expire", "com.example.app.pro.monthly"]], 0
            ),
            (
                [
                    "buy", "com.example.app.pro.monthly", "--offer", "pro.monthly.comeback", "--offer-signature",
                    "k:n:1:s",
                ],
                [boughtMonthly], 64
            ),
            (["buy", "com.example.app.pro.yearly", "--billing-plan", "monthly"], [], 64),
            (["buy", "com.example.app.pro.yearly", "--billing-plan", "upfront"], [], 0),
            (["trigger", "PRICE_INCREASE/PENDING"], [], 0), (["trigger", "PRICE_INCREASE/ACCEPTED"], [], 0),
            (["trigger", "EXPIRED/PRICE_INCREASE"], [], 0),
        ] as [([String], [[String]], Int32)])
    func aFormAnswersWhatTheCommandLinePrints(argv: [String], setup: [[String]], status: Int32) throws {
        func prepared() -> Harness {
            let harness = Harness()
            for words in [["clock", "set", "2027-01-01T00:00:00Z"], ["clock", "freeze"]] + setup {
                #expect(harness.run(words).status == 0, "setup: \(words)")
            }
            return harness
        }
        let cli = prepared().run(argv + ["--json"])
        #expect(cli.status == status, "the command line's answer is the one this case is about")
        let page = try Self.json(try Self.manager(prepared()).respond(try Self.action(argv)))
        #expect(page["exitCode"] == .int(cli.status))
        let printed = cli.stdout.isEmpty ? JSONValue.null : try JSONValue.parse(Array(cli.stdout.utf8))
        #expect(Self.withoutUUIDs(page["output"]) == Self.withoutUUIDs(printed))
        let lines = cli.stderr.split(separator: "\n").map { JSONValue.string(String($0)) }
        #expect(page["messages"] == .array(lines))
    }

    /// The trigger form lists what `trigger --list` can raise, the price increase's kinds among them.
    @Test func theTriggerListHasThePriceIncreaseKinds() throws {
        let page = try Self.json(try Self.manager(Harness()).respond(try Self.request("/api/read/triggers")))
        let names = page["output"]?["triggerable"]?.arrayValue?.compactMap(\.stringValue) ?? []
        for kind in ["PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED", "EXPIRED/PRICE_INCREASE"] {
            #expect(names.contains(kind))
        }
    }

    /// A notification's UUID is random: the one thing two equal states do not share.
    static func withoutUUIDs(_ value: JSONValue?) -> JSONValue? {
        switch value {
        case .object(let members)?:
            return .object(members.map { ($0.0, $0.0 == "notificationUUID" ? .null : withoutUUIDs($0.1) ?? .null) })
        case .array(let items)?: return .array(items.map { withoutUUIDs($0) ?? .null })
        default: return value
        }
    }

    @Test func aReadIsTheCommandsJSON() throws {
        let harness = Harness()
        _ = harness.run("buy", "com.example.app.pro.monthly")
        let manager = try Self.manager(harness)
        for (view, words) in [("status", ["status"]), ("products", ["list"]), ("settings", ["settings"])] {
            let page = try Self.json(manager.respond(try Self.request("/api/read/\(view)")))
            #expect(page["output"] == (try JSONValue.parse(Array(harness.run(words + ["--json"]).stdout.utf8))))
        }
        let jws = try Self.json(manager.respond(try Self.request("/api/read/jws?transaction=1")))
        #expect(jws["output"]?["payload"]?["transactionId"] == .string("1"))
    }

    /// The server holds no App Store logic: its files reach the library through the commands
    /// alone, never a session or a catalog of their own.
    @Test func thePagesServerCodeCallsNoLibraryOperation() throws {
        let folder = Harness.repositoryRoot + "/Sources/iapsim/UI"
        let files = try FileManager().contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 5)
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for forbidden in [
                "StoreSession", "catalogAndSession", ".session", "Catalog.load", "PurchaseState", "Outbox",
            ] {
                #expect(!text.contains(forbidden), "\(file) uses \(forbidden): the page's server must run commands")
            }
        }
    }

    /// A running clock is read again on one chained timer that a hidden tab stops: no
    /// `setInterval` that would keep firing (and stack reads) behind a hidden tab or a slow server.
    @Test func theClockTimerIsBoundedAndPausedWhenHidden() {
        #expect(!PageSource.script.contains("setInterval"))
        #expect(PageSource.script.contains("document.addEventListener('visibilitychange'"))
        #expect(
            PageSource.script.contains("if (ticking || document.hidden || !view.clock || view.clock.frozen) return;"))
    }

    // MARK: Customers

    /// The picker's customer is `--account NAME` in the words: the page's answer for bob is the
    /// command line's for bob, on equal states, and default's history is left as it was.
    @Test func anActionForAnotherCustomerIsTheCommandLinesForThatCustomer() throws {
        func prepared() -> Harness {
            let harness = Harness()
            for words in [["clock", "set", "2027-01-01T00:00:00Z"], ["clock", "freeze"], boughtMonthly] {
                #expect(harness.run(words).status == 0, "setup: \(words)")
            }
            return harness
        }
        let argv = ["buy", "com.example.app.book", "--account", "bob"]
        let cli = prepared().run(argv + ["--json"])
        #expect(cli.status == 0)
        let state = prepared()
        let defaultsBefore = state.run("transactions", "--json").stdout
        let manager = try Self.manager(state)
        let page = try Self.json(manager.respond(try Self.action(argv)))
        #expect(page["exitCode"] == .int(0))
        #expect(Self.withoutUUIDs(page["output"]) == Self.withoutUUIDs(try JSONValue.parse(Array(cli.stdout.utf8))))
        #expect(state.run("transactions", "--json").stdout == defaultsBefore, "default's history is untouched")
        // The reads for bob are the command line's for bob; default's table does not have the book.
        let status = try Self.json(manager.respond(try Self.request("/api/read/status?account=bob")))
        #expect(
            status["output"]
                == (try JSONValue.parse(Array(state.run("--account", "bob", "status", "--json").stdout.utf8))))
        let bobs = try Self.json(manager.respond(try Self.request("/api/rows/transactions?account=bob")))
        #expect(bobs["transactions"]?.arrayValue?.map { $0["productID"] } == [.string("com.example.app.book")])
        let defaults = try Self.json(manager.respond(try Self.request("/api/rows/transactions")))
        #expect(
            defaults["transactions"]?.arrayValue?.map { $0["productID"] } == [.string("com.example.app.pro.monthly")])
        let accounts = try Self.json(manager.respond(try Self.request("/api/read/accounts")))
        #expect(
            accounts["output"]?["accounts"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["default", "bob"])
    }

    /// A name that is no customer's is the command line's usage error (exit 64), in an action's
    /// words or a read's `?account=`, and nothing is run or written.
    @Test(arguments: ["../elsewhere", "-x", ".hidden", "", String(repeating: "a", count: 65)])
    func anInvalidCustomerNameIsAUsageError(name: String) throws {
        let harness = Harness()
        let manager = try Self.manager(harness)
        let argv = ["buy", "com.example.app.book", "--account", name]
        let page = try Self.json(manager.respond(try Self.action(argv)))
        #expect(page["exitCode"] == .int(64))
        let cli = harness.run(argv + ["--json"])
        #expect(cli.status == 64)
        let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        for target in ["/api/read/status", "/api/rows/transactions", "/api/version"] {
            let response = manager.respond(try Self.request(target + "?account=" + query))
            #expect(response.status.code == 400, "\(target)")
            #expect(try Self.json(response)["exitCode"] == .int(64), "\(target)")
        }
        #expect(!FileManager().fileExists(atPath: harness.stateDirectory + "/purchases.json"))
        #expect(!FileManager().fileExists(atPath: harness.stateDirectory + "/accounts"))
    }

    /// The page adds a customer (`accounts add`), never removes one.
    @Test func thePageAddsACustomerButRemovesNone() throws {
        let harness = Harness()
        let manager = try Self.manager(harness)
        let added = try Self.json(manager.respond(try Self.action(["accounts", "add", "carol"])))
        #expect(added["exitCode"] == .int(0))
        #expect(harness.run("accounts", "--json").stdout.contains("\"carol\""))
        #expect(manager.respond(try Self.action(["accounts", "remove", "carol", "--yes"])).status.code == 403)
        #expect(harness.run("accounts", "--json").stdout.contains("\"carol\""))
    }

    /// `iapsim ui --account bob` starts the picker on bob: the page names it, and reads without
    /// `?account=` are bob's.
    @Test func theStartingCustomerIsUisAccount() throws {
        let harness = Harness()
        _ = harness.run("--account", "bob", "buy", "com.example.app.book")
        let manager = try Self.manager(harness, account: "bob")
        let html = String(decoding: manager.respond(try Self.request("/")).body, as: UTF8.self)
        #expect(html.contains(#"<meta name="iapsim-account" content="bob">"#))
        // The first look is never half empty: the header names the customer, and the clock and
        // the catalog say they are loading until their first answer.
        #expect(html.contains(#"aria-describedby="account-hint"><option>bob</option></select>"#))
        #expect(html.contains(#"<output id="clock-now" aria-live="polite">loading…</output>"#))
        #expect(html.contains("Loading the catalog…"))
        let rows = try Self.json(manager.respond(try Self.request("/api/rows/transactions")))
        #expect(rows["total"] == .int(1))
        let defaults = try Self.json(manager.respond(try Self.request("/api/rows/transactions?account=default")))
        #expect(defaults["total"] == .int(0))
    }

    /// The chosen customer's version moves with its own files, and with `customers.json`, so a
    /// customer added in a shell appears in the picker; two customers are two versions.
    @Test func aCustomersVersionFollowsItsFilesAndTheCustomerList() throws {
        let harness = Harness()
        _ = harness.run("--account", "bob", "buy", "com.example.app.book")
        let manager = try Self.manager(harness)
        func version(_ account: String) throws -> String {
            try Self.json(manager.respond(try Self.request("/api/version?account=\(account)")))["version"]?.stringValue
                ?? ""
        }
        let bob = try version("bob")
        #expect(bob != (try version("default")))
        _ = harness.run("--account", "bob", "buy", "com.example.app.coins100")
        #expect(try version("bob") != bob, "bob's purchase moves bob's version")
        let before = try version("default")
        #expect(harness.run("accounts", "add", "carol").status == 0)
        #expect(try version("default") != before, "a new customer moves the version (customers.json)")
    }

    // MARK: Rows and changes

    @Test func transactionsComeInPagesFilteredAndSorted() throws {
        let harness = Harness()
        for product in ["com.example.app.coins100", "com.example.app.book", "com.example.app.coins100"] {
            _ = harness.run("buy", product)
        }
        let manager = try Self.manager(harness)
        let page = try Self.json(
            manager.respond(try Self.request("/api/rows/transactions?limit=2&sort=id&order=desc")))
        #expect(page["total"] == .int(3))
        #expect(page["transactions"]?.arrayValue?.map { $0["id"] } == [.int(3), .int(2)])
        let filtered = try Self.json(
            manager.respond(try Self.request("/api/rows/transactions?eq.productID=com.example.app.coins100")))
        #expect(filtered["matched"] == .int(2))
        let searched = try Self.json(manager.respond(try Self.request("/api/rows/transactions?q=BOOK")))
        #expect(searched["transactions"]?.arrayValue?.map { $0["id"] } == [.int(2)])
        let beyond = try Self.json(manager.respond(try Self.request("/api/rows/transactions?offset=99&limit=100000")))
        #expect(beyond["transactions"] == .array([]))
    }

    @Test func aChangeFromAShellChangesTheVersion() throws {
        let harness = Harness()
        let manager = try Self.manager(harness)
        let first = try Self.json(manager.respond(try Self.request("/api/version")))["version"]?.stringValue ?? ""
        let started = Date()
        let same = try Self.json(manager.respond(try Self.request("/api/version?since=\(first)")))
        #expect(same["version"] == .string(first))
        #expect(Date().timeIntervalSince(started) >= 0.25, "it waited for a change")
        _ = harness.run("buy", "com.example.app.book")
        let after = try Self.json(manager.respond(try Self.request("/api/version?since=\(first)")))
        #expect(after["version"] != .string(first))
        let rows = try Self.json(manager.respond(try Self.request("/api/rows/transactions")))
        #expect(rows["total"] == .int(1))
    }

    /// Version polls wait up to 15 s each: enough of them held all 256 connection slots. Past
    /// the bound, one is answered at once and told the server is busy; places are given back.
    @Test func longPollsCannotTakeEveryConnection() throws {
        var manager = try Self.manager(Harness())
        manager.longestWait = 6  // longer than the polls take to start, however slow the machine
        manager.longPolls = LongPolls(limit: 2)
        let polled = manager
        let first = try Self.json(manager.respond(try Self.request("/api/version")))["version"]?.stringValue ?? ""
        let waiting = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: waiting) {
                _ = polled.respond(try! Self.request("/api/version?since=\(first)"))
            }
        }
        var deadline = 0
        while manager.longPolls.count < 2, deadline < 500 {
            usleep(10_000)
            deadline += 1
        }
        #expect(manager.longPolls.count == 2)
        let started = Date()
        let busy = try Self.json(manager.respond(try Self.request("/api/version?since=\(first)")))
        #expect(Date().timeIntervalSince(started) < 2, "answered at once, not after the 6 s wait")
        #expect(busy["busy"] == .bool(true) && busy["version"] == .string(first))
        #expect(waiting.wait(timeout: .now() + 15) == .success)
        #expect(manager.longPolls.count == 0)
        #expect(PageSource.script.contains("answer.busy"), "the page waits before it asks again")
    }

    @Test func uiRefusesABadPortAndArguments() {
        let harness = Harness()
        #expect(harness.run("ui", "--port", "70000").status == 64)
        #expect(harness.run("ui", "extra").status == 64)
    }

    /// Like `serve`'s: a port file in a shared /tmp is never written through a planted link.
    @Test func thePortFileIsNeverWrittenThroughASymlink() throws {
        let harness = Harness()
        let folder = Harness.temporaryPath("ui-link-")
        try FileManager().createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager().createSymbolicLink(atPath: folder + "/port", withDestinationPath: folder + "/target")
        let result = harness.run("ui", "--port-file", folder + "/port")
        #expect(result.status == 73)
        #expect(!FileManager().fileExists(atPath: folder + "/target"))
    }
}

extension HTTPRequest {
    fileprivate func withHost(_ host: String) throws -> HTTPRequest {
        var fields = headers.filter { $0.name != "Host" }.map { ($0.name, $0.value) }
        fields.append(("Host", host))
        return try HTTPRequest(method: method, target: target, headers: HTTPHeaders(fields), body: body)
    }

    fileprivate func withTarget(_ target: String) throws -> HTTPRequest {
        try HTTPRequest(method: method, target: target, headers: headers, body: body)
    }
}
