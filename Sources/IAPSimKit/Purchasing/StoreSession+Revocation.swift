import Foundation

/// Transactions that lose their entitlement after the fact: a refund, and a family organiser
/// who stops sharing (Apple, "Supporting Family Sharing in your app").
extension StoreSession {
    /// What a revocation did. StoreKit does not change what the app delivered: it delivers the
    /// revoked transaction through `Transaction.updates` and the app reacts. iapsim's app
    /// record is that app, and `appRecord` says what it did.
    public struct Revocation: Sendable, Equatable {
        /// The transaction as revoked, delivered through `Transaction.updates`.
        public var transaction: Transaction
        public var appRecord: AppRecordChange
        /// The customer's refund request the refund granted, if one waited
        /// (`Transaction.beginRefundRequest(in:)`, `iapsim request-refund`).
        public var request: RefundRequest? = nil
    }

    /// What the app's record did on receiving a revoked transaction.
    public enum AppRecordChange: Sendable, Equatable {
        /// A consumable: the quantity taken back off the balance (not below zero), which is now
        /// `balance`. Apple leaves reclaiming consumed content to the app.
        case balanceReduced(by: Int, balance: Int)
        /// The product left the purchased identifiers: nothing else grants it.
        case productRemoved
        /// Nothing: another transaction still grants the product — a refunded earlier period
        /// of a subscription whose current period is still paid for, or a product also owned
        /// another way.
        case kept
    }

    /// `SKTestSession.refundTransaction(identifier:)`: the transaction gets a
    /// `revocationDate` and `revocationReason`, and only it loses its entitlement. Refunding
    /// a subscription's current period ends the subscription (it stops renewing); refunding
    /// an earlier period revokes that period only, and the subscription stays as it is.
    /// - Returns: the refunded transaction.
    /// - Throws: `SimulationError.unknownTransaction`, `.alreadyRevoked`.
    public func refund(_ id: UInt64, reason: Transaction.RevocationReason) throws -> Transaction {
        try refundTransaction(id, reason: reason).transaction
    }

    /// `refund`, with what the app's record did with the revoked transaction.
    /// - Parameter percentage: for a prorated refund (`REFUND_PRORATED`), the share given back;
    ///   nil refunds the whole transaction (`REFUND_FULL`). Either way the transaction is revoked
    ///   and the App Store sends `REFUND` (Apple, "revocationType").
    public func refundTransaction(
        _ id: UInt64, reason: Transaction.RevocationReason, percentage: RevocationPercentage? = nil
    ) throws -> Revocation {
        try transact { state, moment in
            let transaction = try Self.transaction(id, in: state, store: store)
            // A refund answers the customer's request for it, when one waits: the App Store
            // grants it, and the request ends.
            let request = state.simulation.refundRequests.first { $0.transactionID == id }
            state.simulation.refundRequests.removeAll { $0.transactionID == id }
            var revocation = try Self.revoke(
                transaction, as: percentage == nil ? .fullRefund : .proratedRefund, reason: reason,
                percentage: percentage, notification: .refund, state: &state, moment: moment)
            revocation.request = request
            return revocation
        }
    }

    /// `buy --as-family-member`: the family organiser buys a family-shareable product and shares
    /// it with this account. The account gets its own transaction, `ownershipType`
    /// `familyShared`, and is charged nothing; the app hears of it through `Transaction.updates`.
    /// A subscription shared this way is a chain of its own beside any the account pays for.
    /// The request's product and `appAccountToken` count; its quantity must be one.
    /// - Throws: `PurchaseError.notFamilyShareable` when the catalog does not mark the product
    ///   `familyShareable` (consumables never are), `.invalidQuantity` for more than one, the
    ///   errors of `quote`.
    public func shareFromFamily(_ request: PurchaseRequest, in catalog: Catalog) throws -> Transaction {
        let productID = request.productID
        let product = try catalog.purchasableProduct(productID)
        guard product.familyShareable, product.type != .consumable else {
            throw PurchaseError.notFamilyShareable(productID: productID, isConsumable: product.type == .consumable)
        }
        try Self.check(request.quantity, of: product)
        return try transact { state, moment in
            try deliverUpdates(&state)
            let transaction = try Self.complete(
                product, quantity: 1, id: try state.takeTransactionID(), storefront: catalog.storefront, state: &state,
                moment: moment.outsideTheApp, appAccountToken: request.appAccountToken, ownership: .familyShared)
            state.simulation.undeliveredTransactionIDs.append(transaction.id)
            return transaction
        }
    }

    /// `family revoke <id>`: the organiser stops sharing the purchase (or leaves the family).
    /// The shared transaction — for a subscription, its current period — is revoked, the
    /// entitlement goes, and the App Store sends `REVOKE` (Apple, "Supporting Family Sharing
    /// in your app"; App Store Server Notifications, "notificationType").
    /// - Throws: `SimulationError.unknownTransaction`, `.notFamilyShared`, `.alreadyRevoked`.
    public func revokeFamilySharing(_ id: UInt64) throws -> Revocation {
        try transact { state, moment in
            var transaction = try Self.transaction(id, in: state, store: store)
            guard transaction.ownershipType == .familyShared else { throw SimulationError.notFamilyShared(id: id) }
            if transaction.productType == .autoRenewable, let latest = state.account.chainLatest(transaction.originalID)
            {
                transaction = latest
            }
            return try Self.revoke(
                transaction, as: .familyRevocation, reason: nil, notification: .revoke, state: &state, moment: moment)
        }
    }

    private static func transaction(_ id: UInt64, in state: PurchaseState, store: StateStore) throws -> Transaction {
        guard state.hasTransaction(id), let transaction = try state.account.current(id: id) ?? store.transaction(id)
        else {
            throw SimulationError.unknownTransaction(id: id)
        }
        guard transaction.revocationDate == nil else { throw SimulationError.alreadyRevoked(id: transaction.id) }
        return transaction
    }

    /// Revokes `transaction` now, as `type`, and lets the app's record react, then notifies
    /// `notification`.
    /// Only the chain's current period ends a subscription: an earlier period's revocation
    /// leaves its state, its renewals and the app's record alone.
    private static func revoke(
        _ original: Transaction, as type: Transaction.RevocationType, reason: Transaction.RevocationReason?,
        percentage: RevocationPercentage? = nil,
        notification: ServerNotification.Kind, state: inout PurchaseState, moment: Moment
    ) throws -> Revocation {
        var transaction = original
        transaction.revocationDate = moment.now
        transaction.revocationReason = reason
        transaction.revocationPercentage = percentage?.value
        transaction.revocationType = type
        try state.account.record(transaction, isNew: false)
        var change = AppRecordChange.kept
        var status: ServerNotification.Status?
        let productID = transaction.productID
        switch transaction.productType {
        case .consumable:
            let balance = state.app.consumables[productID] ?? 0
            let left = max(0, balance - transaction.purchasedQuantity)
            state.app.consumables[productID] = left
            change = .balanceReduced(by: balance - left, balance: left)
        case .nonConsumable, .nonRenewable:
            if state.account.latest(for: productID)?.isEntitlement(at: moment.now) != true {
                change = state.app.owns(productID) ? .productRemoved : .kept
                state.app.revoke(productID)
            }
        case .autoRenewable:
            let index = state.simulation.renewals.firstIndex { $0.originalID == transaction.originalID }
            if state.account.chainLatest(transaction.originalID)?.id == transaction.id {
                if let index {
                    state.simulation.renewals[index].willAutoRenew = false
                    state.simulation.renewals[index].phase = .revoked
                }
                change = state.app.owns(productID) ? .productRemoved : .kept
                state.app.revoke(productID)
                status = .revoked
            } else if let index, let latest = state.account.chainLatest(transaction.originalID) {
                status = ServerNotification.Status(
                    SubscriptionEngine.renewalState(state.simulation.renewals[index], latest: latest, at: moment.now))
            }
        }
        let renewal =
            transaction.productType == .autoRenewable
            ? state.simulation.renewals.first { $0.originalID == transaction.originalID } : nil
        state.notify(notification, at: moment.now, transaction: transaction, renewal: renewal, status: status)
        return Revocation(transaction: transaction, appRecord: change)
    }
}
