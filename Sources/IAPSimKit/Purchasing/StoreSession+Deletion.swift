import Foundation

/// Xcode's Transaction Manager beyond the purchase flow: deleting a transaction, clearing
/// the history, resetting the session.
extension StoreSession {
    /// What `deleteTransaction` took away.
    public struct Deletion: Sendable, Equatable {
        /// The transactions deleted, in identifier order: the one named and its children.
        public var transactions: [Transaction]
        /// A pending or expired request deleted instead (it had no transaction yet).
        public var request: PendingPurchase?
        /// Renewals made again at once: a subscription's newest period was deleted while
        /// auto-renew is on, and the App Store bills a period that has no transaction.
        public var renewedAgain: [Transaction] = []
    }

    /// `SKTestSession.deleteTransaction(identifier:)`: the transaction leaves the history, the
    /// entitlements and the app's record, as if it had never been made. Apple: deleting a
    /// transaction deletes its child transactions — deleting a subscription's original
    /// transaction deletes its renewals (and the upgrades and re-subscriptions that share its
    /// `originalID`), and the subscription's renewal state goes with them. A consumable's
    /// quantity comes off the app's balance (not below zero), as a refund's does. Deleting a
    /// subscription's newest renewal while auto-renew is on renews it again at once, as the App
    /// Store bills a period that has no transaction (`Deletion.renewedAgain`).
    ///
    /// The journal is only appended to: each deleted transaction gets a last version with a
    /// `deletionDate`, which every look-up, index rebuild and journal replay passes over.
    /// - Throws: `SimulationError.unknownTransaction` for an identifier the account does not
    ///   have (or no longer has).
    public func deleteTransaction(_ id: UInt64) throws -> Deletion {
        try transact { state, moment in
            if let request = state.simulation.pending.first(where: { $0.id == id })
                ?? state.simulation.expiredRequests.first(where: { $0.id == id })
            {
                state.simulation.pending.removeAll { $0.id == id }
                state.simulation.expiredRequests.removeAll { $0.id == id }
                return Deletion(transactions: [], request: request)
            }
            guard state.hasTransaction(id), let named = try state.account.current(id: id) ?? store.transaction(id)
            else {
                throw SimulationError.unknownTransaction(id: id)
            }
            let wholeChain = named.productType == .autoRenewable && named.id == named.originalID
            let targets = wholeChain ? try chainMembers(named.originalID, in: state) : [named]
            let ids = Set(targets.map(\.id))
            for target in targets {
                var deleted = target
                deleted.deletionDate = moment.now
                try state.account.record(deleted, isNew: false)
            }
            for productID in Set(targets.map(\.productID)).sorted()
            where state.account.latest(for: productID) == nil {
                if let replacement = try newest(productID, excluding: ids, in: state) {
                    state.account.reinstate(replacement)
                }
            }
            if wholeChain { state.simulation.renewals.removeAll { $0.originalID == named.originalID } }
            state.simulation.unfinishedTransactionIDs.removeAll { ids.contains($0) }
            state.simulation.undeliveredTransactionIDs.removeAll { ids.contains($0) }
            state.simulation.refundRequests.removeAll { ids.contains($0.transactionID) }
            let next = state.account.nextTransactionID
            try SubscriptionEngine.advance(&state, to: moment.now, settings: moment.settings)
            let renewedAgain = state.account.unsaved.filter { $0.id >= next && $0.deletionDate == nil }
            let status = AccountStatus(state: state, at: moment.now)
            for target in targets {
                if target.productType == .consumable {
                    let balance = state.app.consumables[target.productID] ?? 0
                    state.app.consumables[target.productID] = max(0, balance - target.purchasedQuantity)
                } else if !status.isEntitled(to: target.productID) {
                    state.app.revoke(target.productID)
                }
            }
            return Deletion(transactions: targets, request: nil, renewedAgain: renewedAgain)
        }
    }

    /// Every transaction of the chain `originalID` in its latest version, under the lock: the
    /// journal's, and those this change has recorded and not yet written.
    private func chainMembers(_ originalID: UInt64, in state: PurchaseState) throws -> [Transaction] {
        var members: [UInt64: Transaction] = [:]
        for transaction in try store.chain(originalID, underLock: true) { members[transaction.id] = transaction }
        for transaction in state.account.unsaved where transaction.originalID == originalID {
            members[transaction.id] = transaction.deletionDate == nil ? transaction : nil
        }
        return members.values.sorted { $0.id < $1.id }
    }

    /// The newest transaction of `productID` that is not deleted nor among `excluded`, under
    /// the lock: the journal's, or one this change has recorded and not yet written.
    private func newest(_ productID: String, excluding excluded: Set<UInt64>, in state: PurchaseState) throws
        -> Transaction?
    {
        var newest = try store.latestTransaction(productID: productID, excluding: excluded)
        for transaction in state.account.unsaved
        where transaction.productID == productID && !excluded.contains(transaction.id)
            && transaction.id >= (newest?.id ?? 0)
        {
            newest = transaction.deletionDate == nil ? transaction : nil
        }
        return newest
    }

    /// `SKTestSession.clearTransactions()`: every transaction goes — the history, the app's
    /// record, pending and expired requests, subscriptions' renewal state, the notifications —
    /// and the session stays as it is configured: its settings and its clock. Transaction
    /// identifiers and notification numbers go on from where they were, as the App Store never
    /// hands one out twice: a backend that saw transaction 7 before the reset never meets
    /// another transaction 7. The app's first-use date (its `AppTransaction`) is the app's, not
    /// a purchase's, and stays.
    /// - Returns: the files removed.
    @discardableResult
    public func clearTransactions() throws -> [String] {
        try store.clearHistory { old in
            var fresh = PurchaseState(account: PurchaseState.Account(nextTransactionID: old.account.nextTransactionID))
            fresh.account.appTransactionID = old.account.appTransactionID
            fresh.account.customerNumber = old.account.customerNumber
            fresh.account.firstUseDate = old.account.firstUseDate
            fresh.simulation.settings = old.simulation.settings
            fresh.simulation.clock = old.simulation.clock
            fresh.outbox.count = old.outbox.count
            return fresh
        }
    }
}
