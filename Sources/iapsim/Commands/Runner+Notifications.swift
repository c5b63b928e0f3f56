import Foundation
import IAPSimJSON
import IAPSimKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Runner {
    /// `notifications`: the outbox, as Apple's Notification History lists it.
    func notifications(_ action: NotificationsAction) throws -> Report {
        let (_, session) = try catalogAndSession()
        switch action {
        case .list(let filter):
            let entries = try session.notifications(filter)
            return Report(
                json: .value(.object([("notifications", .array(entries.map(Self.entryJSON)))])),
                text: {
                    guard !entries.isEmpty else { return [.line("No notifications.")] }
                    let rows =
                        [["DATE", "TYPE", "UUID", "TRANSACTION", "DELIVERY"]]
                        + entries.map { entry in
                            [
                                ISO8601Date.string(entry.notification.date), entry.notification.name,
                                entry.notification.uuid, entry.notification.transaction.map { String($0.id) } ?? "-",
                                Self.deliveryText(entry),
                            ]
                        }
                    return [.table(rows: rows, header: true, shrinking: [2])]
                })
        case .show(let uuid):
            let (entry, signed) = try session.notification(uuid, signer: try signer())
            return Report(
                json: .object([
                    ("signedPayload", .string(signed.jws)), ("payload", signed.payload),
                    ("sendAttempts", .array(entry.attempts.map(Self.attemptJSON))),
                ]),
                lines: [
                    "Signed payload:", signed.jws, "Decoded:", String(decoding: signed.payload.bytes(), as: UTF8.self),
                    "Delivery: \(Self.deliveryText(entry))",
                ])
        }
    }

    /// `notify-test`: Request a Test Notification.
    func notifyTest() throws -> Report {
        let (_, session) = try catalogAndSession()
        let test = try session.sendTestNotification()
        return Report(
            json: .object([("testNotificationToken", .string(test.uuid)), ("notification", Self.notificationJSON(test))]),
            lines: ["Queued TEST notification \(test.uuid); 'iapsim listen --forward-to URL' delivers it."])
    }

    /// `trigger TYPE[/SUBTYPE]`, or `trigger --list`.
    func trigger(_ name: String?, productID: String?) throws -> Report {
        guard let name else {
            return Report(
                json: .object([("triggerable", .array(StoreSession.triggerable.map(JSON.string)))]),
                lines: StoreSession.triggerable)
        }
        let (catalog, session) = try catalogAndSession()
        let raised = try session.trigger(name, productID: productID, in: catalog)
        return Report(
            json: .object([("notifications", .array(raised.map(Self.notificationJSON)))]),
            lines: raised.isEmpty
                ? ["Nothing was raised."]
                : raised.map {
                    "\(ISO8601Date.string($0.date))  \($0.name)  [\($0.uuid)]\($0.transaction.map { "  transaction \($0.id)" } ?? "")"
                })
    }

    /// `listen --forward-to URL`: delivers each due notification, in order, then waits for new
    /// ones (other iapsim processes append them) until SIGINT or SIGTERM; with `--drain`,
    /// exits once nothing is due. Each attempt is a line as it happens.
    func listen(_ request: ListenRequest) throws -> Report {
        let (_, session) = try catalogAndSession()
        let signer = try signer()
        ListenSignals.install()
        let headers = request.headers.map { ($0.name, $0.value) }
        var delivered = 0
        var failed = 0
        if !request.drain, !options.json {
            console.out("Forwarding notifications to http://\(request.endpoint.host):\(request.endpoint.port)\(request.endpoint.path) (Ctrl-C stops)")
        }
        while !ListenSignals.stopRequested {
            let due = try session.deliverDueNotifications(
                to: request.endpoint, headers: headers, timeout: request.timeout, signer: signer, kinds: request.kinds,
                shouldStop: { ListenSignals.stopRequested }
            ) { delivery, attempt, elapsed in
                if attempt.result == .success { delivered += 1 } else { failed += 1 }
                let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
                let notification = delivery.notification
                if options.json {
                    console.out(
                        bytes: JSON.object([
                            ("date", .date(notification.date)), ("notificationType", .string(notification.kind.rawValue)),
                            ("subtype", .optional(notification.subtype?.rawValue)),
                            ("notificationUUID", .string(notification.uuid)), ("attempt", .int(delivery.attempt)),
                            ("sendAttemptResult", .string(attempt.result.rawValue)),
                            ("httpStatus", attempt.httpStatus.map { JSON.int($0) } ?? .null),
                            ("milliseconds", .int(milliseconds)),
                        ]).bytes(compact: true) + [0x0A])
                } else {
                    let answer = attempt.httpStatus.map(String.init) ?? attempt.result.rawValue
                    console.out(
                        "\(ISO8601Date.string(notification.date))  \(notification.name)  [\(notification.uuid)]  --> \(answer) (\(milliseconds) ms)"
                    )
                }
            }
            if due == 0 {
                if request.drain { break }
                ListenSignals.sleep(seconds: 0.25)
            }
        }
        return Report(notes: options.json ? [] : ["Delivered \(delivered), failed \(failed)."])
    }

    static func deliveryText(_ entry: NotificationEntry) -> String {
        guard let last = entry.attempts.last else { return "pending" }
        let tries = entry.attempts.count == 1 ? "1 attempt" : "\(entry.attempts.count) attempts"
        return entry.isDelivered ? "delivered (\(tries))" : "\(last.result.rawValue)\(last.httpStatus.map { " \($0)" } ?? "") (\(tries))"
    }

    static func notificationJSON(_ n: ServerNotification) -> JSON {
        .object([
            ("notificationUUID", .string(n.uuid)), ("notificationType", .string(n.kind.rawValue)),
            ("subtype", .optional(n.subtype?.rawValue)), ("date", .date(n.date)),
            ("transactionID", n.transaction.map { JSON.int($0.id) } ?? .null),
            ("originalTransactionID", n.transaction.map { JSON.int($0.originalID) } ?? .null),
            ("status", n.status.map { JSON.int($0.rawValue) } ?? .null),
        ])
    }

    static func attemptJSON(_ a: DeliveryAttempt) -> JSON {
        .object([
            ("attemptDate", .date(a.date)), ("sendAttemptResult", .string(a.result.rawValue)),
            ("httpStatus", a.httpStatus.map { JSON.int($0) } ?? .null),
        ])
    }

    static func entryJSON(_ entry: NotificationEntry) -> JSON {
        guard case .object(let members) = notificationJSON(entry.notification) else { return .null }
        return .object(
            members + [
                ("delivered", .bool(entry.isDelivered)), ("sendAttempts", .array(entry.attempts.map(attemptJSON))),
            ])
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
