import Foundation
import IAPSimHTTP
import IAPSimJSON
import IAPSimKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Listen: CLICommand {
    static let spec = CommandSpec(
        name: "listen",
        abstract: "Deliver notifications to a webhook, as the App Store does (stripe listen for Apple).",
        synopsis: "--forward-to URL [--drain] [--events TYPE,…] [--timeout S] [--header 'K: V']",
        discussion: """
            POSTs each due notification, in order, as {"signedPayload": "<JWS>"} (Content-Type:
            application/json) to URL, and prints one line per attempt. HTTP 200-206 is success;
            any other status, a timeout or a refused connection is a failed attempt, recorded
            with Apple's sendAttemptResult and retried on Apple's schedule on the simulated clock:
            in Production 1, 12, 24, 48 and 72 hours after the previous attempt, in the sandbox
            never. Each attempt is dated when it fell due, so after 'clock advance P3D' a drain
            makes every retry Apple would have made by then. Each attempt is recorded before the
            next POST: a listen killed at any moment posts again at most the one in flight. One
            listen delivers a state's notifications: another waits up to IAPSIM_LOCK_TIMEOUT, then
            exits 75. Without --drain it runs until SIGINT or SIGTERM, picking up what other
            iapsim processes append and waking when a retry falls due; with --drain it delivers
            what is due and exits, for scripts and CI, with status 7 when any attempt failed (0
            when all went through), so a script that posts to a webhook not yet up notices. A
            refused connection says so and asks whether the webhook runs there. What failed is
            never lost: 'iapsim notifications resend --failed --forward-to URL' posts it again,
            recorded as attempts like any other. Plain http:// only. Payloads are signed at
            delivery with the test certificates ('iapsim certs').
            """,
        arguments: [],
        options: [
            .certs,
            .environment,
            OptionSpec(
                name: "forward-to", valueName: "URL",
                help: "The webhook to POST notifications to: an http:// URL; a warning when not loopback."),
            OptionSpec(name: "drain", help: "Deliver what is due, retries included, then exit."),
            OptionSpec(name: "events", valueName: "TYPES", help: "Only these notification types, comma-separated."),
            OptionSpec(
                name: "timeout", valueName: "SECONDS", help: "Give up on a delivery after this long (default 10)."),
            OptionSpec(
                name: "header", valueName: "'NAME: VALUE'",
                help: "Add this header to each POST (repeatable); not Host, Content-Length, Connection or the like.",
                repeatable: true),
        ],
        examples: [
            "iapsim buy com.example.app.book; iapsim listen --forward-to http://127.0.0.1:9/hook --drain --timeout 1 "
                + "|| iapsim notifications --only-failures"
        ])

    let endpoint: HTTPEndpoint
    /// Deliver what is due, then exit.
    let drain: Bool
    let kinds: Set<ServerNotification.Kind>?
    let timeout: Double
    let headers: [HTTPHeader]

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
        (endpoint, timeout) = try Self.webhook(words, missing: "where to POST the notifications")
        drain = words.flag("drain")
        var headers: [HTTPHeader] = []
        for text in words.all("header") {
            guard let header = HTTPHeader(text) else { throw words.error("--header \(text): expected 'Name: value'") }
            if HTTPClient.isReserved(headerName: header.name) { throw words.error(HTTPHeader.reservedMessage(text)) }
            headers.append(header)
        }
        self.headers = headers
        var kinds: Set<ServerNotification.Kind>?
        if let text = words.value("events") {
            kinds = []
            for word in text.split(separator: ",") {
                guard
                    let kind = ServerNotification.Kind(rawValue: word.trimmingCharacters(in: .whitespaces).uppercased())
                else {
                    throw words.error("--events \(word): not a notification type; expected e.g. DID_RENEW,EXPIRED")
                }
                kinds?.insert(kind)
            }
        }
        self.kinds = kinds
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let signer = try context.signer()
        ListenSignals.install()
        let headers = self.headers.map { ($0.name, $0.value) }
        var delivered = 0
        var failed = 0
        if !drain, !context.options.json {
            context.console.out(
                "Forwarding notifications to http://\(endpoint.host):\(endpoint.port)\(endpoint.path) (Ctrl-C stops)")
        }
        let deliverer = try NotificationDeliverer(
            session: session, endpoint: endpoint, headers: headers, timeout: timeout, signer: signer, kinds: kinds)
        while !ListenSignals.stopRequested {
            let stop: @Sendable () -> Bool = { ListenSignals.stopRequested }
            let made = try deliverer.deliverDue(shouldStop: stop) {
                delivery, attempt, elapsed in
                if attempt.result == .success { delivered += 1 } else { failed += 1 }
                Self.show(delivery, attempt, elapsed, endpoint: endpoint, in: context)
            }
            if made == 0 {
                if drain { break }
                // Other processes' notifications are picked up within a quarter of a second;
                // a retry is made when it falls due on a running clock.
                ListenSignals.sleep(seconds: min(0.25, (deliverer.secondsUntilNextRetry() ?? 1) + 0.001))
            }
        }
        try deliverer.finish()
        var report = Report(notes: context.options.json ? [] : ["Delivered \(delivered), failed \(failed)."])
        if drain, failed > 0 {
            report.status = .undelivered
            if !context.options.json { report.notes.append(Self.resendHint(endpoint)) }
        }
        return report
    }

    /// `--forward-to URL` and `--timeout S` (default 10), as `listen` and `notifications resend`
    /// take them.
    static func webhook(_ words: ParsedWords, missing: String) throws(UsageError) -> (HTTPEndpoint, Double) {
        guard let url = words.value("forward-to") else { throw words.error("missing --forward-to URL: \(missing)") }
        let endpoint: HTTPEndpoint
        do {
            endpoint = try HTTPEndpoint(url)
        } catch {
            throw words.error("--forward-to \(url): \(error.message)")
        }
        var timeout = 10.0
        if let text = words.value("timeout") {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 600 else {
                throw words.error("--timeout \(text): expected seconds from 0 to 600, such as 5 or 0.5")
            }
            timeout = seconds
        }
        return (endpoint, timeout)
    }

    /// How to post again what failed.
    static func resendHint(_ endpoint: HTTPEndpoint) -> String {
        "Note: nothing is lost: 'iapsim notifications resend --failed --forward-to "
            + "http://\(endpoint.host):\(endpoint.port)\(endpoint.path)' posts the failed ones again"
    }

    /// One line per attempt: the attempt's date on the simulated clock, the notification, the
    /// answer; a refused connection asks whether the webhook runs there.
    static func show(
        _ delivery: StoreSession.Delivery, _ attempt: DeliveryAttempt, _ elapsed: Duration, endpoint: HTTPEndpoint,
        in context: CommandContext
    ) {
        let milliseconds = Int(
            elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let notification = delivery.notification
        if context.options.json {
            context.console.out(
                bytes: JSON.object([
                    ("date", .date(notification.date)), ("notificationType", .string(notification.kind.rawValue)),
                    ("subtype", .optional(notification.subtype?.rawValue)),
                    ("notificationUUID", .string(notification.uuid)), ("attempt", .int(delivery.attempt)),
                    ("attemptDate", .date(attempt.date)), ("sendAttemptResult", .string(attempt.result.rawValue)),
                    ("httpStatus", attempt.httpStatus.map { JSON.int($0) } ?? .null),
                    ("milliseconds", .int(milliseconds)),
                ]).bytes(compact: true) + [0x0A])
        } else {
            let answer = attempt.httpStatus.map(String.init) ?? attempt.result.rawValue
            let retry = delivery.attempt > 1 ? ", attempt \(delivery.attempt)" : ""
            let refused =
                attempt.result == .socketIssue && attempt.httpStatus == nil
                ? ": could not connect; is your webhook running on \(endpoint.host):\(endpoint.port)?" : ""
            context.console.out(
                "\(ISO8601Date.string(attempt.date))  \(notification.name)  [\(notification.uuid)]  --> \(answer) "
                    + "(\(milliseconds) ms\(retry))\(refused)")
        }
    }
}

extension Listen {
    /// A webhook on another machine gets the signed test data over plain HTTP: say so.
    var warnings: [String] {
        guard !Loopback.isLoopback(endpoint.host) else { return [] }
        return [
            "Warning: --forward-to \(endpoint.host) is not a loopback address: notifications go there over plain HTTP"
        ]
    }
}

/// `--header 'Name: value'`.
struct HTTPHeader: Equatable, Sendable {
    /// Why `--header TEXT` naming a field the client writes itself is refused.
    static func reservedMessage(_ text: String) -> String {
        "--header \(text): iapsim writes Host, Content-Length, Transfer-Encoding and Connection itself; "
            + "a second one would make the request ambiguous"
    }

    var name: String
    var value: String

    init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        name = text[..<colon].trimmingCharacters(in: .whitespaces)
        value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let token = name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0 != ":" && $0.value < 0x7F }
        guard !name.isEmpty, token, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
    }
}

/// SIGINT and SIGTERM end `listen` cleanly: the flag is checked between deliveries.
enum ListenSignals {
    nonisolated(unsafe) private static var stop: sig_atomic_t = 0

    static var stopRequested: Bool { stop != 0 }

    static func install() {
        signal(SIGINT) { _ in ListenSignals.stop = 1 }
        signal(SIGTERM) { _ in ListenSignals.stop = 1 }
    }

    /// Sleeps up to `seconds`, waking early when a signal asks to stop.
    static func sleep(seconds: Double) {
        var remaining = seconds
        while remaining > 0, !stopRequested {
            usleep(UInt32(min(remaining, 0.05) * 1_000_000))
            remaining -= 0.05
        }
    }
}
