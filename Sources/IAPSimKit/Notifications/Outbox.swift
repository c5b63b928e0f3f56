import Foundation
import IAPSimCrypto
import IAPSimJSON

/// The account's App Store Server Notifications: every notification recorded, and every
/// delivery attempt, in an append-only journal beside the transactions (`notifications.jsonl`).
/// A notification is written in the same locked step as the change that raised it, so no
/// event is lost or recorded twice by a crash; an attempt is appended on its own as it ends
/// (`NotificationDeliverer`), past the mark, which the snapshot keeps of how far the journal goes.
public struct Outbox: Sendable, Equatable {
    /// Notifications ever recorded: numbers each new one's UUID.
    public var count: Int = 0
    /// The bytes of the journal the snapshot includes.
    public var journalLength: UInt64 = 0
    /// Records made since the state was read, for the store to append. Not in the snapshot.
    public internal(set) var unsaved: [Record] = []

    public init() {}

    /// A line of the journal: a notification, or one attempt to deliver one.
    public enum Record: Sendable, Equatable {
        case notification(ServerNotification)
        case attempt(DeliveryAttempt)
    }
}

/// One attempt to deliver a notification, with Apple's `sendAttemptResult`.
public struct DeliveryAttempt: Sendable, Equatable {
    /// `sendAttemptResult` values.
    public enum Result: String, Sendable, CaseIterable {
        case success = "SUCCESS"
        case timedOut = "TIMED_OUT"
        case tlsIssue = "TLS_ISSUE"
        case circularRedirect = "CIRCULAR_REDIRECT"
        case noResponse = "NO_RESPONSE"
        case socketIssue = "SOCKET_ISSUE"
        case unsupportedCharset = "UNSUPPORTED_CHARSET"
        case invalidResponse = "INVALID_RESPONSE"
        case prematureClose = "PREMATURE_CLOSE"
        case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
        case other = "OTHER"
    }

    public var uuid: String
    /// `attemptDate`, on the simulated clock.
    public var date: Date
    public var result: Result
    /// The HTTP status the endpoint answered, when it answered.
    public var httpStatus: Int?

    public init(uuid: String, date: Date, result: Result, httpStatus: Int?) {
        self.uuid = uuid
        self.date = date
        self.result = result
        self.httpStatus = httpStatus
    }
}

extension PurchaseState {
    /// Records the notification of an event that happened at `date`. Its UUID is derived from
    /// the account and its number, so it is stable (and the same on every delivery attempt).
    mutating func notify(
        _ kind: ServerNotification.Kind, _ subtype: ServerNotification.Subtype? = nil, at date: Date,
        transaction: Transaction?, renewal: RenewalInfo? = nil, status: ServerNotification.Status? = nil,
        consumptionRequestReason: RefundRequest.Reason? = nil, summary: MassExtensionSummary? = nil
    ) {
        outbox.count += 1
        let uuid = Self.notificationUUID(account: account.appTransactionID ?? "", number: outbox.count)
        var notification = ServerNotification(
            uuid: uuid, kind: kind, subtype: subtype, date: date, transaction: transaction, renewal: renewal,
            status: status)
        notification.consumptionRequestReason = consumptionRequestReason
        notification.summary = summary
        // The renewal info is the chain's at `date`: when the notification is about an earlier
        // period (a refund of it), the chain's newest transaction is kept beside it.
        if let renewal, let transaction, let latest = account.chainLatest(renewal.originalID),
            latest.id != transaction.id
        {
            notification.latest = latest
        }
        outbox.unsaved.append(.notification(notification))
    }

    /// A version 4-shaped UUID from SHA-256 of the account and the notification's number.
    static func notificationUUID(account: String, number: Int) -> String {
        var bytes = Array(SHA256.hash(Array("iapsim notification \(account) \(number)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        // Hex digit by digit: `String(format:)` asks the locale, which loads ICU's locale data
        // (a million instructions, an eighth of a `buy`).
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The notification `data.status` of the chain `info` whose newest transaction is `latest`.
    static func notificationStatus(_ info: RenewalInfo, latest: Transaction, at date: Date) -> ServerNotification.Status
    {
        ServerNotification.Status(SubscriptionEngine.renewalState(info, latest: latest, at: date))
    }
}

// The journal's JSON lines.
extension Outbox.Record {
    var json: JSONValue {
        switch self {
        case .notification(let n):
            var members: [(String, JSONValue)] = [
                ("notificationUUID", .string(n.uuid)), ("notificationType", .string(n.kind.rawValue)),
            ]
            if let subtype = n.subtype { members.append(("subtype", .string(subtype.rawValue))) }
            members.append(("date", .string(String(n.date.timeIntervalSince1970))))
            if let status = n.status { members.append(("status", .int(status.rawValue))) }
            if let transaction = n.transaction { members.append(("transaction", transaction.json)) }
            if let renewal = n.renewal { members.append(("renewal", renewal.json)) }
            if let reason = n.consumptionRequestReason {
                members.append(("consumptionRequestReason", .string(reason.rawValue)))
            }
            if let latest = n.latest { members.append(("latest", latest.json)) }
            if let summary = n.summary { members.append(("summary", summary.json)) }
            return .object([("notification", .object(members))])
        case .attempt(let a):
            var members: [(String, JSONValue)] = [
                ("notificationUUID", .string(a.uuid)), ("date", .string(String(a.date.timeIntervalSince1970))),
                ("sendAttemptResult", .string(a.result.rawValue)),
            ]
            if let status = a.httpStatus { members.append(("httpStatus", .int(status))) }
            return .object([("attempt", .object(members))])
        }
    }

    init(_ r: Reader) throws(Reader.Failure) {
        // Dates as seconds since 1970 in text, to keep the fraction an ISO date would drop.
        func seconds(_ field: Reader) throws(Reader.Failure) -> Date {
            guard let value = Double(try field.string()), value.isFinite else {
                throw Reader.Failure(message: "date: expected seconds since 1970")
            }
            return Date(timeIntervalSince1970: value)
        }
        if let n = try r.optional("notification") {
            let status = try n.optional("status")?.int()
            var notification = ServerNotification(
                uuid: try n.required("notificationUUID").string(),
                kind: try n.required("notificationType").raw(ServerNotification.Kind.self),
                subtype: try n.optional("subtype")?.raw(ServerNotification.Subtype.self),
                date: try seconds(try n.required("date")),
                transaction: try n.optional("transaction").map { t throws(Reader.Failure) in try Transaction(t) },
                renewal: try n.optional("renewal").map { i throws(Reader.Failure) in try RenewalInfo(i) },
                status: try status.map { s throws(Reader.Failure) in
                    guard let value = ServerNotification.Status(rawValue: s) else {
                        throw Reader.Failure(message: "status \(s) is not 1–5")
                    }
                    return value
                })
            notification.consumptionRequestReason = try n.optional("consumptionRequestReason")?.raw(
                RefundRequest.Reason.self)
            notification.latest = try n.optional("latest").map { t throws(Reader.Failure) in try Transaction(t) }
            notification.summary = try n.optional("summary").map { m throws(Reader.Failure) in
                try MassExtensionSummary(m)
            }
            self = .notification(notification)
        } else {
            let a = try r.required("attempt")
            self = .attempt(
                DeliveryAttempt(
                    uuid: try a.required("notificationUUID").string(), date: try seconds(try a.required("date")),
                    result: try a.required("sendAttemptResult").raw(DeliveryAttempt.Result.self),
                    httpStatus: try a.optional("httpStatus")?.int()))
        }
    }
}

// The journal's form of a mass extension's summary.
extension MassExtensionSummary {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("requestIdentifier", .string(requestIdentifier)), ("productId", .string(productID)),
        ]
        if let codes = storefrontCountryCodes {
            members.append(("storefrontCountryCodes", .array(codes.map(JSONValue.string))))
        }
        members += [("succeededCount", .int(succeededCount)), ("failedCount", .int(failedCount))]
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        var codes: [String]?
        if let list = try r.optional("storefrontCountryCodes") {
            codes = try list.array { item throws(Reader.Failure) in try item.string() }
        }
        self.init(
            requestIdentifier: try r.required("requestIdentifier").string(),
            productID: try r.required("productId").string(), storefrontCountryCodes: codes,
            succeededCount: try r.required("succeededCount").int(), failedCount: try r.required("failedCount").int())
    }
}
