import Foundation

/// A transaction StoreKit 1's restore hands the app: a new transaction of its own, whose
/// `original` is the purchase it restores (Apple, "restoreCompletedTransactions()" and
/// "original": a restored transaction has its own identifier and date; `original` holds the
/// purchase's).
public struct RestoredTransaction: Sendable, Equatable {
    /// The restored transaction's own identifier, taken from the account's sequence like any
    /// other, so it is never another transaction's.
    public var id: UInt64
    public var original: Transaction
}

extension StoreSession {
    /// `SKPaymentQueue.restoreCompletedTransactions()`: re-delivers what the account owns (as
    /// `restore` does) and names each finished purchase StoreKit 1 restores, with the new
    /// identifier its restored transaction gets.
    /// - Throws: `SimulationError.simulated` when the session simulates an App Store sync error.
    public func restoreCompletedTransactions() throws -> (Restoration, [RestoredTransaction]) {
        let restoration = try restore()
        let originals = try history().entries().filter(\.isRestorableByStoreKit1).map(\.transaction)
        guard !originals.isEmpty else { return (restoration, []) }
        let ids = try transact { state, _ in try originals.map { _ in try state.takeTransactionID() } }
        return (restoration, zip(ids, originals).map { RestoredTransaction(id: $0, original: $1) })
    }
}
