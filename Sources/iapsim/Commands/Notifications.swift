import Foundation
import IAPSimHTTP
import IAPSimJSON
import IAPSimKit

struct Notifications: CLICommand {
    static let spec = CommandSpec(
        name: "notifications",
        abstract: "List the App Store Server Notifications the customer raised, and their deliveries.",
        synopsis:
            "[--type TYPE[/SUBTYPE]] [--transaction ID] [--only-failures] [--all-accounts] [--since DATE] [--until DATE]\n"
            + "show <uuid>\nresend (<uuid>... | --failed) --forward-to URL [--timeout S]",
        discussion: """
            Every event the App Store notifies a backend of is recorded as it happens, on the
            simulated clock and in the same locked write as the change: SUBSCRIBED (INITIAL_BUY,
            RESUBSCRIBE), DID_RENEW (BILLING_RECOVERY), DID_FAIL_TO_RENEW (GRACE_PERIOD),
            GRACE_PERIOD_EXPIRED, EXPIRED (VOLUNTARY, BILLING_RETRY, PRICE_INCREASE),
            DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_ENABLED, AUTO_RENEW_DISABLED),
            DID_CHANGE_RENEWAL_PREF (UPGRADE, DOWNGRADE), OFFER_REDEEMED (UPGRADE, DOWNGRADE),
            PRICE_INCREASE (PENDING, ACCEPTED), REFUND, REFUND_DECLINED, REFUND_REVERSED,
            CONSUMPTION_REQUEST, REVOKE, ONE_TIME_CHARGE, RENEWAL_EXTENDED, RENEWAL_EXTENSION
            (SUMMARY, FAILURE) and TEST; 'iapsim trigger --list' names the ones it can make
            happen. Renewals caught up by 'clock advance' each get their own, at their own time;
            each notification's signedDate is its event's moment, and its transaction and
            renewal info are those of that moment. appAppleId is in Production data only, as
            Apple sends it. The list shows each one's delivery attempts ('iapsim listen' makes
            them); 'show' prints the signed payload as it is POSTed and its decoded form, with the signed transaction and renewal info inside decoded too.
            The outbox is the app's: the list shows the customer's notifications (--account)
            and the app's own (TEST, a mass extension's summary); --all-accounts shows every
            customer's. A UUID may be given by a prefix that names one notification.
            'resend UUID... --forward-to URL' posts those notifications again now, and
            'resend --failed' every one whose deliveries failed, whatever Apple's retry schedule
            says (in the sandbox Apple never retries), as 'stripe events resend' does: each
            attempt is recorded with Apple's sendAttemptResult like any 'listen' makes, one line
            each; exit 7 when one fails again, 64 for a UUID that names no notification
            waiting for delivery.
            """,
        arguments: [.init("action", kind: .word(["show", "resend"]))],
        options: [
            .certs,
            .environment,
            OptionSpec(
                name: "type", valueName: "TYPE",
                help: "Only notifications of this TYPE or TYPE/SUBTYPE, e.g. DID_RENEW.",
                values: ServerNotification.Kind.allCases.map(\.rawValue)),
            OptionSpec(
                name: "transaction", valueName: "ID",
                help: "Only notifications about this transaction or its subscription."),
            OptionSpec(name: "only-failures", help: "Only notifications not delivered."),
            OptionSpec(name: "all-accounts", help: "Every customer's notifications: the app's whole outbox."),
            OptionSpec(name: "since", valueName: "DATE", help: "Only notifications from this date on."),
            OptionSpec(name: "until", valueName: "DATE", help: "Only notifications before this date."),
            OptionSpec(name: "failed", help: "With resend: every notification whose deliveries failed."),
            OptionSpec(
                name: "forward-to", valueName: "URL",
                help: "With resend: the webhook to POST to, an http:// URL, as 'listen' posts."),
            OptionSpec(
                name: "timeout", valueName: "SECONDS",
                help: "With resend: give up on a delivery after this long (default 10)."),
        ],
        examples: [
            "iapsim buy com.example.app.pro.monthly && iapsim clock advance P1M && iapsim notifications",
            "iapsim notifications --type DID_RENEW --json",
            "iapsim notifications show \"$(iapsim notifications --json | jq -r '.notifications[0].notificationUUID')\"",
            "iapsim notifications resend --failed --forward-to http://127.0.0.1:8080/hook",
        ])

    let action: Action

    enum Action: Equatable {
        case list(NotificationFilter, allAccounts: Bool)
        case show(uuid: String)
        /// Nil: every notification whose deliveries failed.
        case resend(uuids: [String]?, endpoint: HTTPEndpoint, timeout: Double)
    }

    init(_ words: ParsedWords) throws(UsageError) {
        switch words.arguments.first {
        case nil:
            action = .list(try Self.filter(words), allAccounts: words.flag("all-accounts"))
        case "show":
            guard words.arguments.count == 2 else {
                throw words.error("usage: iapsim notifications show <notification-uuid>")
            }
            action = .show(uuid: words.arguments[1].lowercased())  // a unique prefix will do
        case "resend":
            let uuids = Array(words.arguments.dropFirst())
            guard !uuids.isEmpty != words.flag("failed") else {
                throw words.error("usage: iapsim notifications resend (<uuid>... | --failed) --forward-to URL")
            }
            let (endpoint, timeout) = try Listen.webhook(words, missing: "where to POST the notifications again")
            action = .resend(uuids: uuids.isEmpty ? nil : uuids, endpoint: endpoint, timeout: timeout)
            return
        case let other?:
            throw words.error("unknown notifications action '\(other)'; use show or resend")
        }
        for option in ["failed", "forward-to", "timeout"] where words.has(option) {
            throw words.error("--\(option) goes with 'iapsim notifications resend'")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        switch action {
        case .list(let filter, let allAccounts):
            let entries = try session.notifications(filter, allAccounts: allAccounts)
            return Report(
                json: .value(.object([("notifications", .array(entries.map(NotificationRendering.entryJSON)))])),
                text: {
                    guard !entries.isEmpty else { return [.line("No notifications.")] }
                    let rows =
                        [["DATE", "TYPE", "UUID", "TRANSACTION", "DELIVERY"]]
                        + entries.map { entry in
                            [
                                ISO8601Date.string(entry.notification.date), entry.notification.name,
                                entry.notification.uuid, entry.notification.transaction.map { String($0.id) } ?? "-",
                                NotificationRendering.deliveryText(entry),
                            ]
                        }
                    return [.table(rows: rows, header: true, shrinking: [2])]
                })
        case .resend(let uuids, let endpoint, let timeout):
            return try resend(uuids, to: endpoint, timeout: timeout, session: session, in: context)
        case .show(let uuid):
            let (entry, signed) = try session.notification(uuid, signer: try context.signer())
            // The transaction and renewal info inside are JWS of their own: decoded too.
            let nested = [("signedTransactionInfo", "transactionInfo"), ("signedRenewalInfo", "renewalInfo")]
                .compactMap { field, name -> (String, String, JSONValue)? in
                    guard let jws = signed.payload["data"]?[field]?.stringValue,
                        let decoded = try? JWSInspection.inspect(jws, trusting: nil).payload
                    else { return nil }
                    return (field, name, decoded)
                }
            return Report(
                json: .object(
                    [
                        ("signedPayload", .string(signed.jws)), ("payload", signed.payload),
                        ("sendAttempts", .array(entry.attempts.map(NotificationRendering.attemptJSON))),
                    ] + nested.map { ($0.1, $0.2) }),
                lines: ["Signed payload:", signed.jws, "Decoded:"] + signed.payload.indentedLines
                    + nested.flatMap { ["\($0.0), decoded:"] + $0.2.indentedLines } + [
                        "Delivery: \(NotificationRendering.deliveryText(entry))"
                    ])
        }
    }
}

extension Notifications {
    private static func filter(_ words: ParsedWords) throws(UsageError) -> NotificationFilter {
        var filter = NotificationFilter(onlyFailures: words.flag("only-failures"))
        if let text = words.value("type") {
            let parts = text.uppercased().split(separator: "/", maxSplits: 1).map(String.init)
            guard let kind = ServerNotification.Kind(rawValue: parts[0]) else {
                throw words.error("--type \(text): not a notification type such as DID_RENEW")
            }
            filter.kind = kind
            if parts.count == 2 {
                guard let subtype = ServerNotification.Subtype(rawValue: parts[1]) else {
                    throw words.error("--type \(text): not a subtype such as GRACE_PERIOD")
                }
                filter.subtype = subtype
            }
        }
        if let text = words.value("transaction") {
            guard let id = UInt64(text), id > 0 else {
                throw words.error("--transaction \(text): not a transaction identifier")
            }
            filter.transactionID = id
        }
        for (option, keyPath) in [("since", \NotificationFilter.start), ("until", \NotificationFilter.end)] {
            if let text = words.value(option) {
                guard let date = ISO8601Date.date(text) else {
                    throw words.error("--\(option) \(text): expected an ISO 8601 date such as 2027-01-01T00:00:00Z")
                }
                filter[keyPath: keyPath] = date
            }
        }
        return filter
    }
}

extension Notifications {
    /// `resend`: the deliverer posts them again now and records each attempt.
    private func resend(
        _ uuids: [String]?, to endpoint: HTTPEndpoint, timeout: Double, session: StoreSession,
        in context: CommandContext
    ) throws -> Report {
        let deliverer = try NotificationDeliverer(
            session: session, endpoint: endpoint, timeout: timeout, signer: try context.signer())
        var delivered = 0
        var failed = 0
        let (_, unknown) = try deliverer.resend(uuids) { delivery, attempt, elapsed in
            if attempt.result == .success { delivered += 1 } else { failed += 1 }
            Listen.show(delivery, attempt, elapsed, endpoint: endpoint, in: context)
        }
        try deliverer.finish()
        var report = Report()
        if !unknown.isEmpty {
            report.status = .usage
            report.errors = unknown.map { "Error: \($0): no notification waiting for delivery has this UUID" }
        } else if failed > 0 {
            report.status = .undelivered
        }
        if !context.options.json, unknown.isEmpty {
            report.notes = [
                delivered + failed == 0 ? "Nothing to resend." : "Resent: delivered \(delivered), failed \(failed)."
            ]
        }
        return report
    }
}
