import Foundation
import IAPSimHTTP
import IAPSimJSON

/// A notification with its delivery attempts, for listings and delivery.
public struct NotificationEntry: Sendable, Equatable {
    public var notification: ServerNotification
    public var attempts: [DeliveryAttempt]

    /// Delivered: one attempt succeeded.
    public var isDelivered: Bool { attempts.contains { $0.result == .success } }
}

/// Which notifications to list, as Apple's Get Notification History filters them.
public struct NotificationFilter: Sendable, Equatable {
    public var kind: ServerNotification.Kind?
    public var subtype: ServerNotification.Subtype?
    /// Notifications about this transaction or its subscription chain.
    public var transactionID: UInt64?
    public var onlyFailures = false
    public var start: Date?
    public var end: Date?

    public init(
        kind: ServerNotification.Kind? = nil, subtype: ServerNotification.Subtype? = nil, transactionID: UInt64? = nil,
        onlyFailures: Bool = false, start: Date? = nil, end: Date? = nil
    ) {
        self.kind = kind
        self.subtype = subtype
        self.transactionID = transactionID
        self.onlyFailures = onlyFailures
        self.start = start
        self.end = end
    }

    func matches(_ entry: NotificationEntry) -> Bool {
        let n = entry.notification
        if let kind, n.kind != kind { return false }
        if let subtype, n.subtype != subtype { return false }
        if let transactionID, n.transaction?.id != transactionID, n.transaction?.originalID != transactionID {
            return false
        }
        if onlyFailures, entry.isDelivered || entry.attempts.isEmpty { return false }
        if let start, n.date < start { return false }
        if let end, n.date >= end { return false }
        return true
    }
}

extension StoreSession {
    /// The App Store's retry schedule for a notification that was not delivered (Apple,
    /// "Responding to App Store Server Notifications"): in Production five retries, 1, 12,
    /// 24, 48 and 72 hours after the previous attempt; in the sandbox none.
    public static func retryDelays(_ environment: AppStoreEnvironment) -> [TimeInterval] {
        environment == .production ? [1, 12, 24, 48, 72].map { $0 * 3600 } : []
    }

    /// Every notification with its attempts, oldest first, brought up to date (renewals
    /// caught up by the clock notify too).
    public func notifications(_ filter: NotificationFilter = NotificationFilter()) throws -> [NotificationEntry] {
        _ = try snapshot()  // time brought up to date, its notifications saved
        var entries: [NotificationEntry] = []
        var index: [String: Int] = [:]
        for record in try store.notificationRecords() {
            switch record {
            case .notification(let notification):
                index[notification.uuid] = entries.count
                entries.append(NotificationEntry(notification: notification, attempts: []))
            case .attempt(let attempt):
                if let position = index[attempt.uuid] { entries[position].attempts.append(attempt) }
            }
        }
        return entries.filter(filter.matches)
    }

    /// The notification `uuid`, signed as it is delivered.
    public func notification(_ uuid: String, signer: Signer) throws -> (entry: NotificationEntry, signed: SignedData) {
        guard let entry = try notifications().first(where: { $0.notification.uuid == uuid }) else {
            throw SimulationError.unknownNotification(uuid: uuid)
        }
        let (state, moment) = try snapshot()
        let signed = NotificationPayload.signedPayload(
            entry.notification, context: signingContext(state, moment, signer), identity: signer.identity)
        return (entry, SignedData(jws: signed.jws, payload: signed.payload))
    }

    /// `TEST`: what "Request a Test Notification" queues.
    public func sendTestNotification() throws -> ServerNotification {
        try transact { state, moment in
            state.notify(.test, at: moment.now, transaction: nil)
            guard case .notification(let test)? = state.outbox.unsaved.last else {
                preconditionFailure("notify appends a notification")
            }
            return test
        }
    }

    /// A notification due for delivery now, signed.
    public struct Delivery: Sendable {
        public var notification: ServerNotification
        /// The body to POST: `{"signedPayload": "<JWS>"}`.
        public var body: [UInt8]
        /// The attempt this is: 1 for the first.
        public var attempt: Int
    }

    /// The notifications to deliver now: never attempted, or failed with a retry due on the
    /// simulated clock by the environment's schedule. At most `limit`, oldest first.
    public func dueDeliveries(
        signer: Signer, kinds: Set<ServerNotification.Kind>? = nil, limit: Int = 100
    ) throws -> (deliveries: [Delivery], date: Date) {
        let (state, moment) = try snapshot()
        // Only the notifications not delivered yet are kept while the journal is read, so
        // memory follows what is pending, not the whole history.
        var pending: [Int: NotificationEntry] = [:]
        var number: [String: Int] = [:]
        var count = 0
        try store.forEachNotificationRecord { record in
            switch record {
            case .notification(let notification):
                count += 1
                pending[count] = NotificationEntry(notification: notification, attempts: [])
                number[notification.uuid] = count
            case .attempt(let attempt):
                guard let position = number[attempt.uuid] else { return }
                if attempt.result == .success {
                    pending[position] = nil
                    number[attempt.uuid] = nil
                } else {
                    pending[position]?.attempts.append(attempt)
                }
            }
        }
        let entries = pending.keys.sorted().compactMap { pending[$0] }
        let context = signingContext(state, moment, signer)
        let delays = Self.retryDelays(context.environment)
        var due: [Delivery] = []
        for entry in entries where !entry.isDelivered {
            if let kinds, !kinds.contains(entry.notification.kind) { continue }
            let attempts = entry.attempts.count
            if attempts > 0 {
                guard attempts <= delays.count, let last = entry.attempts.last,
                    last.date.addingTimeInterval(delays[attempts - 1]) <= moment.now
                else { continue }
            }
            let signed = NotificationPayload.signedPayload(entry.notification, context: context, identity: signer.identity)
            let body = JSONValue.object([("signedPayload", .string(signed.jws))]).bytes(compact: true)
            due.append(Delivery(notification: entry.notification, body: body, attempt: attempts + 1))
            if due.count >= limit { break }
        }
        return (due, moment.now)
    }

    /// Delivers what is due now to `endpoint`, in order, as the App Store POSTs it, and records
    /// every attempt: HTTP 200–206 is success, anything else (another status, a timeout, a
    /// refused connection) a failed attempt with Apple's `sendAttemptResult`.
    /// - Parameter report: called after each attempt, with how long it took.
    /// - Returns: how many notifications were due (0 when there was nothing to do).
    public func deliverDueNotifications(
        to endpoint: HTTPEndpoint, headers: [(String, String)] = [], timeout: Double, signer: Signer,
        kinds: Set<ServerNotification.Kind>? = nil, shouldStop: () -> Bool = { false },
        report: (Delivery, DeliveryAttempt, Duration) -> Void
    ) throws -> Int {
        let (due, now) = try dueDeliveries(signer: signer, kinds: kinds, limit: 100)
        var attempts: [DeliveryAttempt] = []
        defer { try? record(attempts) }  // what was sent is recorded even if a later step fails
        let clock = ContinuousClock()
        for delivery in due where !shouldStop() {
            let start = clock.now
            let outcome = HTTPClient.post(endpoint, body: delivery.body, headers: headers, timeout: timeout)
            let elapsed = clock.now - start
            let attempt: DeliveryAttempt
            switch outcome {
            case .response(let status):
                attempt = DeliveryAttempt(
                    uuid: delivery.notification.uuid, date: now,
                    result: (200...206).contains(status) ? .success : .unsuccessfulHTTPResponseCode, httpStatus: status)
            case .failed(let failure, _):
                attempt = DeliveryAttempt(
                    uuid: delivery.notification.uuid, date: now, result: .init(failure), httpStatus: nil)
            }
            attempts.append(attempt)
            report(delivery, attempt, elapsed)
        }
        try record(attempts)
        attempts = []
        return due.count
    }

    /// Records delivery attempts, in one locked write.
    public func record(_ attempts: [DeliveryAttempt]) throws {
        guard !attempts.isEmpty else { return }
        try transact { state, _ in attempts.forEach { state.outbox.record($0) } }
    }
}
