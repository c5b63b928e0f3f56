import Foundation

/// What a transaction is at a moment: refunded, replaced by another level, past its expiry,
/// or purchased (Xcode's Transaction Manager shows the same).
public enum TransactionState: String, Sendable, CaseIterable {
    case purchased, expired, upgraded, revoked
}

extension Transaction {
    /// This transaction's state at `date`.
    public func state(at date: Date) -> TransactionState {
        if revocationDate != nil { return .revoked }
        if isUpgraded { return .upgraded }
        if let end = expirationDate, end <= date { return .expired }
        return .purchased
    }
}

/// Which part of the history to show: a transaction state, or the purchases still pending,
/// or the transactions the app has not finished.
public enum HistoryFilter: String, Sendable, CaseIterable {
    case purchased, pending, unfinished, expired, upgraded, revoked
}

/// The account's history, like Xcode's Transaction Manager: every transaction in its latest
/// version with its state now, and the purchases that have no transaction yet.
///
/// The transactions are read as they are walked (`forEach`), through the index, so a history
/// of a million costs the memory of one: nothing holds them all unless asked (`entries()`).
public struct TransactionHistory: Sendable {
    /// One transaction with what it is now.
    public struct Entry: Sendable, Equatable {
        public var transaction: Transaction
        public var state: TransactionState
        /// False until the app calls `Transaction.finish()`.
        public var isFinished: Bool

        /// Whether StoreKit 2 still lists it (`Transaction.all`, `latest(for:)`): a consumable
        /// the app finished leaves the history a device keeps, unless it was refunded (Apple,
        /// "all": finished consumables are not included; a refunded one is, with its
        /// `revocationDate`).
        public var isInStoreKitHistory: Bool {
            transaction.productType != .consumable || !isFinished || transaction.revocationDate != nil
        }

        /// Whether StoreKit 1's `restoreCompletedTransactions()` restores it: a non-consumable
        /// or auto-renewable subscription transaction the app finished, not revoked (Apple,
        /// "restoreCompletedTransactions()": "previously completed purchases"; a transaction
        /// still in the queue is delivered as it is, not restored).
        public var isRestorableByStoreKit1: Bool {
            transaction.productType.isRestorable && isFinished && transaction.revocationDate == nil
        }
    }

    public var pending: [PendingPurchase]
    /// Ask to Buy requests that expired unanswered, which ended declined (in the whole
    /// history only: they are neither pending nor transactions).
    public var expiredRequests: [PendingPurchase]
    /// The moment the states are at.
    public var date: Date
    /// The simulated Verification error: while it is set, StoreKit hands every transaction
    /// over `unverified` with it (`VerificationResult.unverified(_:_:)`).
    public var verificationError: SimulatedError?
    let store: StateStore
    let productID: String?
    let filter: HistoryFilter?
    /// What the app has not finished, in identifier order.
    let unfinished: [UInt64]
    let unfinishedSet: Set<UInt64>

    /// Calls `body` with each entry in identifier order, reading the journal as it goes.
    public func forEach(_ body: (Entry) throws -> Void) throws {
        func entry(_ transaction: Transaction) -> Entry {
            Entry(
                transaction: transaction, state: transaction.state(at: date),
                isFinished: !unfinishedSet.contains(transaction.id))
        }
        switch filter {
        case .pending:
            return
        case .unfinished:
            try store.forEachTransaction(ids: unfinished) { transaction in
                if productID == nil || transaction.productID == productID { try body(entry(transaction)) }
            }
        default:
            try store.forEachTransaction(productID: productID, where: includes) { try body(entry($0)) }
        }
    }

    /// Calls `body` with each entry's summary, its state and whether it is finished, in
    /// identifier order, from the index alone: a first pass, to lay out what `forEach` reads.
    public func forEachSummary(_ body: (TransactionSummary, TransactionState, Bool) throws -> Void) throws {
        func pass(_ summary: TransactionSummary) throws {
            try body(summary, summary.state(at: date), !unfinishedSet.contains(summary.id))
        }
        switch filter {
        case .pending:
            return
        case .unfinished:
            try store.forEachSummary(ids: unfinished) { summary in
                if productID == nil || summary.productID == productID { try pass(summary) }
            }
        default:
            try store.forEachSummary(productID: productID) { summary in
                if includes(summary) { try pass(summary) }
                return true
            }
        }
    }

    /// Every entry, in memory.
    public func entries() throws -> [Entry] {
        var entries: [Entry] = []
        try forEach { entries.append($0) }
        return entries
    }

    private func includes(_ summary: TransactionSummary) -> Bool {
        switch filter {
        case nil: true
        case .pending: false
        case .unfinished: unfinishedSet.contains(summary.id)
        case let filter?: summary.state(at: date).rawValue == filter.rawValue
        }
    }
}

extension StoreSession {
    /// The history, optionally of one product and in one state, as of now: time is brought up
    /// to date and the index checked under the lock; the transactions are read when walked.
    public func history(productID: String? = nil, filter: HistoryFilter? = nil) throws -> TransactionHistory {
        let (state, moment) = try snapshot()
        let pending = state.simulation.pending.filter {
            (productID == nil || $0.productID == productID) && (filter == nil || filter == .pending)
        }
        let expired = state.simulation.expiredRequests.filter {
            (productID == nil || $0.productID == productID) && filter == nil
        }
        let unfinished = state.simulation.unfinishedTransactionIDs
        return TransactionHistory(
            pending: pending, expiredRequests: expired, date: moment.now,
            verificationError: moment.settings.simulatedError(.verificationError), store: store, productID: productID,
            filter: filter,
            unfinished: unfinished.sorted(), unfinishedSet: Set(unfinished))
    }
}
