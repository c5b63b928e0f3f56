import IAPSimKit

/// How a notification and its delivery attempts read, in text and in `--json`
/// (`notifications`, `trigger`, `notify-test`).
enum NotificationRendering {
    static func deliveryText(_ entry: NotificationEntry) -> String {
        guard let last = entry.attempts.last else { return "pending" }
        let tries = entry.attempts.count == 1 ? "1 attempt" : "\(entry.attempts.count) attempts"
        return entry.isDelivered
            ? "delivered (\(tries))" : "\(last.result.rawValue)\(last.httpStatus.map { " \($0)" } ?? "") (\(tries))"
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
