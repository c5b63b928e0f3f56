import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a `StateStore` read last, for a process that reads the state again and again
/// (`iapsim serve`, one read or more per request), shared by the copies of the store.
///
/// - The snapshot decoded, with the bytes it was decoded from: it is decoded again only when
///   the bytes differ. Comparing them costs a small part of parsing them, and unlike a file's
///   size and time it cannot be fooled by two writes in one clock tick. A snapshot whose file
///   was already settled when read (`SettledFileSignature.wasSettled`) is not even read again while
///   its signature stays the same.
/// - The index's records in the order they were last changed (`ModificationOrder`), for
///   history pages.
/// - Transactions looked up through the index, by identifier, for one version of the journal
///   (its `FileSignature`): the same signature the index itself is trusted by. The journal is
///   only appended to, so a new version empties the set.
final class StateCache: @unchecked Sendable {
    private let lock = NSLock()
    /// Real time in seconds since 1970, as file times are kept: to judge whether a file has
    /// settled. Tests move it.
    private let now: @Sendable () -> Double

    init(now: @escaping @Sendable () -> Double = StateCache.realNow) {
        self.now = now
    }

    /// Whether a file with `signature` has settled now, as this cache judges it.
    func isSettled(_ signature: SettledFileSignature) -> Bool { signature.wasSettled(at: now()) }

    static let realNow: @Sendable () -> Double = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private var notificationJournalReadCount = 0
    private var notificationLinesReadCount = 0
    private var notificationView: NotificationJournalView?

    /// How many times this process has read the notifications journal, and how many of its
    /// lines it parsed: tests count work with them.
    var notificationJournalReads: Int { lock.withLock { notificationJournalReadCount } }
    var notificationLinesRead: Int { lock.withLock { notificationLinesReadCount } }

    func countNotificationJournalRead() { lock.withLock { notificationJournalReadCount += 1 } }

    func countNotificationLinesRead(_ lines: Int) { lock.withLock { notificationLinesReadCount += lines } }

    /// The notifications journal as last read, to be read on from its `end`, taken out so
    /// that appending to it copies nothing; `keep` puts it back.
    func takeNotificationJournal() -> NotificationJournalView? {
        lock.withLock {
            defer { notificationView = nil }
            return notificationView
        }
    }

    func keepNotificationJournal(_ view: NotificationJournalView?) { lock.withLock { notificationView = view } }

    /// Set once the commit log was seen to hold nothing from before this boot: it cannot come
    /// to while this process runs (the boot does not change), so readers stop looking.
    private var logOfThisBoot = false

    var commitLogIsOfThisBoot: Bool {
        get { lock.withLock { logOfThisBoot } }
        set { lock.withLock { logOfThisBoot = newValue } }
    }

    private var snapshotBytes: Data?
    private var snapshot: PurchaseState?
    /// The signature of the snapshot file, when it was settled as it was read.
    private var settledSignature: SettledFileSignature?
    private var journal: FileSignature?
    private var transactions: [UInt64: Transaction] = [:]
    private var modificationOrder: ModificationOrder?
    /// Enough for every page a history request signs; forgotten all at once when full.
    private let transactionLimit = 1024

    /// The state decoded from exactly `data` before, if it is the last one.
    func state(decodedFrom data: Data) -> PurchaseState? {
        lock.withLock { snapshotBytes == data ? snapshot : nil }
    }

    /// The snapshot, without reading it, when the file is the settled one read last.
    func settledSnapshot(_ signature: SettledFileSignature) -> PurchaseState? {
        lock.withLock { signature.signature != .absent && settledSignature == signature ? snapshot : nil }
    }

    /// Remembers the snapshot read from a file with `signature` (taken from the open file).
    func remember(_ state: PurchaseState, decodedFrom data: Data, signature: SettledFileSignature) {
        let settled = signature.wasSettled(at: now())
        lock.withLock {
            snapshotBytes = data
            snapshot = state
            settledSignature = settled ? signature : nil
        }
    }

    private var appState: (state: AppState, signature: SettledFileSignature)?

    /// The app's state (`store.json`), without reading it, when the file is the settled one
    /// read last: a long-running reader (`serve`) reads it for every request, as it does the
    /// snapshot.
    func settledAppState(_ signature: SettledFileSignature) -> AppState? {
        lock.withLock { signature.signature != .absent && appState?.signature == signature ? appState?.state : nil }
    }

    /// Remembers the app's state read from a file with `signature`, if the file was settled.
    func remember(_ state: AppState, signature: SettledFileSignature) {
        let settled = signature.wasSettled(at: now())
        lock.withLock { appState = settled ? (state, signature) : nil }
    }

    /// The modification order built last, for whichever journal.
    var lastModificationOrder: ModificationOrder? {
        get { lock.withLock { modificationOrder } }
        set { lock.withLock { modificationOrder = newValue } }
    }

    /// Transaction `id` as read from the journal with `signature`, if it was.
    func transaction(_ id: UInt64, journal signature: FileSignature) -> Transaction? {
        lock.withLock { journal == signature ? transactions[id] : nil }
    }

    func remember(_ transaction: Transaction, journal signature: FileSignature) {
        lock.withLock {
            if journal != signature || transactions.count >= transactionLimit {
                transactions.removeAll(keepingCapacity: true)
                journal = signature
            }
            transactions[transaction.id] = transaction
        }
    }
}

/// The notifications journal's entries, read up to `end`, of the file `device`/`inode`: the
/// journal is only appended to, so the next read starts at `end` (Get Notification History).
struct NotificationJournalView: Sendable {
    var device: UInt64
    var inode: UInt64
    var end: UInt64 = 0
    var entries: [NotificationEntry] = []
    /// What a filter looks at of each entry, in the same order: scanning these copies no
    /// strings, so a page's filter over 100,000 notifications takes a few hundred microseconds.
    var keys: [NotificationKey] = []
    /// Each notification's position in `entries`, by UUID.
    var positions: [String: Int] = [:]

    mutating func append(_ record: Outbox.Record) {
        switch record {
        case .notification(let notification):
            positions[notification.uuid] = entries.count
            entries.append(NotificationEntry(notification: notification, attempts: []))
            keys.append(NotificationKey(notification))
        case .attempt(let attempt):
            guard let position = positions[attempt.uuid] else { return }
            entries[position].attempts.append(attempt)
            keys[position].attempted = true
            if attempt.result == .success { keys[position].delivered = true }
        }
    }
}

/// The fields of a notification entry that `NotificationFilter` matches, all plain values.
struct NotificationKey: Sendable {
    var kind: ServerNotification.Kind
    var subtype: ServerNotification.Subtype?
    var date: Date
    var transactionID: UInt64?
    var originalID: UInt64?
    var attempted = false
    var delivered = false

    init(_ notification: ServerNotification) {
        kind = notification.kind
        subtype = notification.subtype
        date = notification.date
        transactionID = notification.transaction?.id
        originalID = notification.transaction?.originalID
    }
}
