import Dispatch
import Foundation
import IAPSimKit

/// Tells `Transaction.updates` and the `SKPaymentQueue` of transactions the app did not just
/// buy itself: an Ask to Buy approved, a renewal, a refund, a purchase on another device —
/// whether this process made the change (`SKTestSession`) or another one did (`iapsim approve`,
/// `iapsim refund`, `iapsim clock advance`).
///
/// While anyone listens, a timer on a private queue looks at the state folder's files every
/// 75 ms: a `stat` of each of the state's files (`StateVersion`, as the page waits on), no
/// read, no busy CPU. When the version changed — or once a second, so that time passing under an accelerated `timeRate` renews subscriptions — it
/// reads the history and tells the listeners of every transaction that is new or changed.
final class TransactionWatcher: @unchecked Sendable {
    static let shared = TransactionWatcher()

    /// Told of each transaction new or changed, and whether it is new.
    typealias Listener = @Sendable ([(transaction: IAPSimKit.Transaction, isNew: Bool)]) -> Void

    /// What of a transaction changes after it is made that StoreKit tells the app of: a
    /// revocation (refund, family sharing stopped) and an upgrade away. A subscription period
    /// cut short or lengthened is no update; its renewal is a new transaction.
    private struct Fingerprint: Equatable {
        var revocationDate: Date?
        var isUpgraded: Bool
        var ownership: IAPSimKit.Transaction.OwnershipType
    }

    static let interval = DispatchTimeInterval.milliseconds(75)
    private let queue = DispatchQueue(label: "iapsim.StoreKit.TransactionWatcher")
    private let lock = NSLock()
    private var listeners: [UUID: Listener] = [:]
    private var known: [UInt64: Fingerprint]?
    /// Transactions a purchase call returned to the app itself: not news for the listeners.
    private var claimed: Set<UInt64> = []
    private var purchasesInFlight = 0
    private var timer: DispatchSourceTimer?
    /// Set by `stop()` for good: no timer is armed and no look is made after it.
    private var stopped = false
    /// Read and written on `queue` only.
    private var lastSignature: StateVersion?
    private var ticks = 0

    /// Starts telling `listener` of changes made from now on.
    func subscribe(_ listener: @escaping Listener) -> UUID {
        let id = UUID()
        let needsBaseline = lock.withLock {
            listeners[id] = listener
            return known == nil && !stopped
        }
        if needsBaseline { baseline() }
        lock.withLock {
            if timer == nil, !stopped {
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(25))
                timer.setEventHandler { [weak self] in self?.tick(force: false) }
                timer.resume()
                self.timer = timer
            }
        }
        return id
    }

    /// Stops looking at the state for good: at the process's exit, before its temporary state
    /// folder is removed, so no look made meanwhile makes the folder again. A listener that
    /// subscribes later (a task still running at exit) is kept but arms no timer, and a poke
    /// makes no look.
    func stop() {
        let cancelled = lock.withLock { () -> DispatchSourceTimer? in
            stopped = true
            defer { timer = nil }
            return timer
        }
        cancelled?.cancel()
        queue.sync {}  // a look under way ends before this returns
    }

    func unsubscribe(_ id: UUID) {
        lock.withLock {
            listeners[id] = nil
            if listeners.isEmpty {
                timer?.cancel()
                timer = nil
                known = nil
            }
        }
    }

    /// Runs a purchase whose transactions go to the caller, not to the listeners.
    /// They are known as they were made, so a later change to them (a refund) is news.
    func purchasing<Result>(_ body: () throws -> (Result, [IAPSimKit.Transaction])) rethrows -> Result {
        lock.withLock { purchasesInFlight += 1 }
        defer { lock.withLock { purchasesInFlight -= 1 } }
        let (result, transactions) = try body()
        lock.withLock {
            claimed.formUnion(transactions.map(\.id))
            for transaction in transactions where known != nil {
                known?[transaction.id] = Self.fingerprint(transaction)
            }
        }
        return result
    }

    /// Something in this process changed the state: look now rather than at the next tick.
    func poke() {
        queue.async { [weak self] in self?.tick(force: true) }
    }

    /// The store is another one now (a new `SKTestSession`): what was known is of the old one.
    func storeChanged() {
        let listening = lock.withLock {
            known = nil
            claimed = []
            return !listeners.isEmpty && !stopped
        }
        // The tick's own fields belong to the queue: changed there, never from this thread.
        queue.async { self.lastSignature = nil }
        if listening { baseline() }
    }

    private func baseline() {
        let entries = (try? currentTransactions()) ?? []
        lock.withLock {
            if known == nil {
                known = Dictionary(entries.map { ($0.id, Self.fingerprint($0)) }, uniquingKeysWith: { $1 })
            }
        }
    }

    private func tick(force: Bool) {
        guard !lock.withLock({ stopped }) else { return }
        ticks += 1
        let signature = stateSignature()
        let due = force || ticks % 13 == 0
        let (inFlight, hasBaseline) = lock.withLock { (purchasesInFlight, known != nil) }
        guard hasBaseline, inFlight == 0, due || signature != lastSignature else { return }
        lastSignature = signature
        guard let entries = try? currentTransactions() else { return }
        let news: [(transaction: IAPSimKit.Transaction, isNew: Bool)] = lock.withLock {
            guard purchasesInFlight == 0, var known else { return [] }
            var news: [(transaction: IAPSimKit.Transaction, isNew: Bool)] = []
            // A transaction deleted (or a history cleared) is forgotten: its identifier may
            // come back as a new transaction.
            let present = Set(entries.map(\.id))
            known = known.filter { present.contains($0.key) }
            claimed.formIntersection(present)
            for transaction in entries {
                let print = Self.fingerprint(transaction)
                let old = known[transaction.id]
                known[transaction.id] = print
                if old == nil, claimed.contains(transaction.id) { continue }
                if old != print { news.append((transaction, old == nil)) }
            }
            self.known = known
            return news
        }
        guard !news.isEmpty else { return }
        for listener in lock.withLock({ Array(listeners.values) }) { listener(news) }
        // What time did (renewals) is saved by the look above; the next signature includes it.
        lastSignature = stateSignature()
    }

    private func currentTransactions() throws -> [IAPSimKit.Transaction] {
        try StoreRuntime.shared.withStore { _, session in try session.history().entries().map(\.transaction) }
    }

    private static func fingerprint(_ transaction: IAPSimKit.Transaction) -> Fingerprint {
        Fingerprint(
            revocationDate: transaction.revocationDate, isUpgraded: transaction.isUpgraded,
            ownership: transaction.ownershipType)
    }

    /// The state's version (`StateVersion`): what the page waits on too.
    private func stateSignature() -> StateVersion? {
        guard let store = try? StoreRuntime.shared.store() else { return nil }
        return StateVersion(store.location)
    }
}
