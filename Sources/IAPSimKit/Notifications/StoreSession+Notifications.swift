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
    /// Only the notifications of this customer (`PurchaseState.Account.customerNumber`), and
    /// those about no transaction, which are the app's.
    public var customerNumber: UInt64?

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

    func matches(_ key: NotificationKey) -> Bool {
        if let kind, key.kind != kind { return false }
        if let subtype, key.subtype != subtype { return false }
        if let transactionID, key.transactionID != transactionID, key.originalID != transactionID { return false }
        if let customerNumber, let id = key.transactionID,
            PurchaseState.Account.customerNumber(ofTransaction: id) != customerNumber
        {
            return false
        }
        if onlyFailures, key.delivered || !key.attempted { return false }
        if let start, key.date < start { return false }
        if let end, key.date >= end { return false }
        return true
    }

    func matches(_ entry: NotificationEntry) -> Bool {
        let n = entry.notification
        if let kind, n.kind != kind { return false }
        if let subtype, n.subtype != subtype { return false }
        if let transactionID, n.transaction?.id != transactionID, n.transaction?.originalID != transactionID {
            return false
        }
        if let customerNumber, let id = n.transaction?.id,
            PurchaseState.Account.customerNumber(ofTransaction: id) != customerNumber
        {
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
    ///
    /// The journal is only appended to: what this process read of it is kept
    /// (`NotificationJournalView`) and only lines added since are read, so in `serve` a page of
    /// history costs the same however long the journal is.
    ///
    /// The outbox is the app's; this lists the notifications of the customer this session acts
    /// for, and the app's own (`TEST`, a mass extension's summary), unless `allAccounts`.
    public func notifications(_ filter: NotificationFilter = NotificationFilter(), allAccounts: Bool = false) throws
        -> [NotificationEntry]
    {
        var filter = filter
        if !allAccounts {
            // A customer the store does not have yet has no notifications of its own.
            filter.customerNumber = store.accountExists ? try snapshot().state.account.customerNumber : UInt64.max
        }
        return try allNotifications().filter(filter.matches)
    }

    /// Every notification with its attempts, oldest first, as `notifications` reads them: a
    /// caller that pages picks its page by position and copies only that.
    func allNotifications() throws -> [NotificationEntry] {
        try notificationJournalView().entries
    }

    /// The notifications journal as read to its end, the entries with their `keys`.
    func notificationJournalView() throws -> NotificationJournalView {
        _ = try snapshot()  // time brought up to date, its notifications saved
        let path = store.location.notificationsPath
        for _ in 0..<3 {
            let before = FileSignature.of(path)
            var view = store.cache.takeNotificationJournal() ?? NotificationJournalView(device: 0, inode: 0)
            if view.device != before.device || view.inode != before.inode || view.end > before.size {
                view = NotificationJournalView(device: before.device, inode: before.inode)  // another file: from 0
            }
            try store.forEachNotificationRecord(from: view.end) { record, end in
                view.append(record)
                view.end = end
            }
            let after = FileSignature.of(path)
            // Replaced while read (`reset`): read the new file from its start.
            guard after.device == before.device, after.inode == before.inode else { continue }
            store.cache.keepNotificationJournal(view)
            return view
        }
        var view = NotificationJournalView(device: 0, inode: 0)
        try store.forEachNotificationRecord { view.append($0) }
        return view
    }

    /// The notification `uuid`, signed as it is delivered.
    /// - Parameter uuid: the notification's UUID, or a prefix of it that names one alone.
    public func notification(_ uuid: String, signer: Signer) throws -> (entry: NotificationEntry, signed: SignedData) {
        let all = try allNotifications()
        let key = uuid.lowercased()
        let matches = all.filter { $0.notification.uuid.hasPrefix(key) }
        guard let entry = all.first(where: { $0.notification.uuid == key }) ?? (matches.count == 1 ? matches[0] : nil)
        else {
            throw SimulationError.unknownNotification(uuid: uuid)
        }
        let (state, moment) = try snapshot()
        var known: [UInt64: String] = [:]
        let context = signingContext(
            signingContext(state, moment, signer), for: entry.notification, ownNumber: state.account.customerNumber,
            known: &known)
        let signed = NotificationPayload.signedPayload(entry.notification, context: context, identity: signer.identity)
        return (entry, SignedData(jws: signed.jws, payload: signed.payload))
    }

    /// `entries`, already read, each signed as it is delivered: one snapshot for them all and
    /// no further read of the journal, so a page of history costs the same however long the
    /// journal is beyond the one read that listed it.
    public func signedNotifications(_ entries: [NotificationEntry], signer: Signer) throws -> [SignedData] {
        guard !entries.isEmpty else { return [] }
        let (state, moment) = try snapshot()
        let base = signingContext(state, moment, signer)
        var known: [UInt64: String] = [:]
        return entries.map {
            let context = signingContext(
                base, for: $0.notification, ownNumber: state.account.customerNumber, known: &known)
            let signed = NotificationPayload.signedPayload($0.notification, context: context, identity: signer.identity)
            return SignedData(jws: signed.jws, payload: signed.payload)
        }
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

    /// A notification being delivered, signed.
    public struct Delivery: Sendable {
        public var notification: ServerNotification
        /// The body to POST: `{"signedPayload": "<JWS>"}`.
        public var body: [UInt8]
        /// The attempt this is: 1 for the first.
        public var attempt: Int
    }

    /// Delivers everything due by the simulated now to `endpoint`, retries included, as one
    /// `NotificationDeliverer` does until nothing is left (`listen --drain`).
    /// - Returns: how many POSTs were made.
    public func deliverDueNotifications(
        to endpoint: HTTPEndpoint, headers: [(String, String)] = [], timeout: Double, signer: Signer,
        kinds: Set<ServerNotification.Kind>? = nil, shouldStop: () -> Bool = { false },
        report: (Delivery, DeliveryAttempt, Duration) -> Void
    ) throws -> Int {
        let deliverer = try NotificationDeliverer(
            session: self, endpoint: endpoint, headers: headers, timeout: timeout, signer: signer, kinds: kinds)
        var made = 0
        while !shouldStop() {
            let pass = try deliverer.deliverDue(shouldStop: shouldStop, report: report)
            made += pass
            if pass == 0 { break }
        }
        try deliverer.finish()
        return made
    }
}
