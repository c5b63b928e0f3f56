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
public struct TransactionHistory: Sendable {
    /// One transaction with what it is now.
    public struct Entry: Sendable, Equatable {
        public var transaction: Transaction
        public var state: TransactionState
        /// False until the app calls `Transaction.finish()`.
        public var isFinished: Bool
    }

    public var entries: [Entry]
    public var pending: [PendingPurchase]
    public var date: Date
}

extension StoreSession {
    /// The history, optionally of one product and in one state.
    public func history(productID: String? = nil, filter: HistoryFilter? = nil) throws -> TransactionHistory {
        let (state, moment) = try snapshot()
        let unfinished = Set(state.simulation.unfinishedTransactionIDs)
        var entries: [TransactionHistory.Entry] = []
        for transaction in try store.transactions() where productID == nil || transaction.productID == productID {
            let entry = TransactionHistory.Entry(
                transaction: transaction, state: transaction.state(at: moment.now),
                isFinished: !unfinished.contains(transaction.id))
            switch filter {
            case nil: entries.append(entry)
            case .pending: break
            case .unfinished: if !entry.isFinished { entries.append(entry) }
            case let filter?: if entry.state.rawValue == filter.rawValue { entries.append(entry) }
            }
        }
        let pending = state.simulation.pending.filter {
            (productID == nil || $0.productID == productID) && (filter == nil || filter == .pending)
        }
        return TransactionHistory(entries: entries, pending: pending, date: moment.now)
    }
}
