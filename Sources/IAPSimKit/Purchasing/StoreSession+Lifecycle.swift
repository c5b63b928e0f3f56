import Foundation
import IAPSimJSON

extension StoreSession {
    /// `SKTestSession.approveAskToBuyTransaction(identifier:)`: the request completes as the
    /// purchase it asked for, with the identifier it was given, and reaches the app through
    /// `Transaction.updates`. What is bought is decided now, as at any purchase: a
    /// non-consumable the account came to own while the request waited is a free re-download,
    /// never a second charge (Apple, "Testing Ask to Buy": once approved, one purchase
    /// completes).
    /// - Returns: `.purchased` with the new transaction, or the result that charged nothing
    ///   (`.redownloaded`, `.alreadySubscribed`, `.downgradeScheduled`).
    public func approve(_ id: UInt64, in catalog: Catalog) throws -> PurchaseResult {
        try transact { state, moment in
            let pending = try Self.pending(
                id, reason: .askToBuy, in: state, wrongState: "is not waiting for Ask to Buy approval")
            return try Self.complete(pending, id: id, in: catalog, state: &state, moment: moment.outsideTheApp)
        }
    }

    /// `declineAskToBuyTransaction(identifier:)`: the purchase ends without a transaction.
    public func decline(_ id: UInt64) throws -> PendingPurchase {
        try transact { state, _ in
            let pending = try Self.pending(
                id, reason: .askToBuy, in: state, wrongState: "is not waiting for Ask to Buy approval")
            state.simulation.pending.removeAll { $0.id == id }
            return pending
        }
    }

    /// What `resolve` did.
    public enum Resolution: Sendable, Equatable {
        /// An interrupted purchase completed outside the app: `.purchased` with a new
        /// transaction, which `Transaction.updates` delivers at the app's next launch, or the
        /// result that charged nothing (a non-consumable owned by then).
        case interruptedPurchase(interruptedID: UInt64, PurchaseResult)
        /// A subscription in billing retry recovered with this renewal.
        case recovered(Transaction)
    }

    /// `resolveIssueForTransaction(identifier:)`: an interrupted purchase completes, as a new
    /// transaction (Apple, "Testing an interrupted purchase": the failed transaction stays
    /// failed, and a new one arrives when the buyer has acted), or a subscription in billing
    /// retry renews. Recovered within its grace period it keeps its billing cycle; later, a
    /// new period starts now.
    public func resolve(_ id: UInt64, in catalog: Catalog) throws -> Resolution {
        if let pending = try store.read().simulation.pending.first(where: { $0.id == id }) {
            guard pending.reason == .interrupted else {
                throw SimulationError.wrongState(
                    id: id, detail: "is waiting for Ask to Buy: use 'iapsim approve \(id)'")
            }
            return try transact { state, moment in
                let pending = try Self.pending(id, reason: .interrupted, in: state, wrongState: "")
                let result = try Self.complete(
                    pending, id: nil, in: catalog, state: &state, moment: moment.outsideTheApp)
                if case .purchased(let transaction) = result {
                    state.simulation.undeliveredTransactionIDs.append(transaction.id)
                }
                return .interruptedPurchase(interruptedID: id, result)
            }
        }
        return try transact { state, moment in
            guard state.hasTransaction(id), let transaction = try state.account.current(id: id) ?? store.transaction(id)
            else {
                throw SimulationError.unknownTransaction(id: id)
            }
            guard let index = state.simulation.renewals.firstIndex(where: { $0.originalID == transaction.originalID }),
                state.simulation.renewals[index].isInBillingRetry,
                let latest = state.account.chainLatest(transaction.originalID)
            else {
                throw SimulationError.wrongState(id: id, detail: "has no purchase issue to resolve")
            }
            var info = state.simulation.renewals[index]
            let inGrace = (info.gracePeriodExpirationDate ?? .distantPast) > moment.now
            let start = inGrace ? (latest.expirationDate ?? moment.now) : moment.now
            let renewal = try SubscriptionEngine.renew(
                &state, &info, from: start, settings: moment.settings, recovered: moment.now)
            state.simulation.renewals[index] = info
            return .recovered(renewal)
        }
    }

    /// Completes the purchase `pending` stood for, now: it leaves the pending list, and the
    /// product is quoted afresh, so what the account owns by now is not charged again. The
    /// buyer already said yes, so neither the payments setting nor a simulated purchase error
    /// applies.
    /// - Parameter id: the identifier a new transaction gets; nil for the next one.
    private static func complete(
        _ pending: PendingPurchase, id: UInt64?, in catalog: Catalog, state: inout PurchaseState, moment: Moment
    ) throws -> PurchaseResult {
        guard let product = catalog.product(pending.productID) else {
            throw SimulationError.productGone(productID: pending.productID)
        }
        state.simulation.pending.removeAll { $0.id == pending.id }
        let request = PurchaseRequest(made: product.id, quantity: try PurchaseQuantity(pending.purchasedQuantity))
        var quote = Self.quote(product, request: request, in: catalog, state: state, moment: moment)
        quote.canMakePayments = true
        return try Self.purchase(
            quote, in: catalog, outcome: .success, state: &state, moment: moment, id: id,
            appAccountToken: pending.appAccountToken)
    }

    private static func pending(
        _ id: UInt64, reason: PendingPurchase.Reason, in state: PurchaseState, wrongState: String
    )
        throws -> PendingPurchase
    {
        guard let pending = state.simulation.pending.first(where: { $0.id == id }) else {
            if let expired = state.simulation.expiredRequests.first(where: { $0.id == id }) {
                let when = expired.expirationDate.map { " at \(ISO8601Date.string($0))" } ?? ""
                throw SimulationError.wrongState(
                    id: id,
                    detail: "is an Ask to Buy request that expired unanswered\(when): it ended declined; "
                        + "buy \(expired.productID) again to ask again")
            }
            if state.hasTransaction(id) { throw SimulationError.wrongState(id: id, detail: "is not pending") }
            throw SimulationError.unknownTransaction(id: id)
        }
        guard pending.reason == reason else {
            let hint =
                pending.reason == .interrupted ? "is an interrupted purchase: use 'iapsim resolve \(id)'" : wrongState
            throw SimulationError.wrongState(id: id, detail: hint)
        }
        return pending
    }

    /// `Transaction.finish()`: the app is done with it; StoreKit stops re-delivering it.
    ///
    /// A consumable that arrived unverified was granted nothing: finishing it once verification
    /// passes is the app granting it and finishing it, as an app that follows Apple's
    /// "Verifying transactions" does when `Transaction.updates` re-delivers it verified at its
    /// next launch. While verification still fails it is refused: the app would not finish it.
    /// - Returns: the quantity granted now (0 for anything but such a consumable).
    @discardableResult
    public func finish(_ id: UInt64) throws -> Int {
        try transact { state, moment in
            guard state.hasTransaction(id) else { throw SimulationError.unknownTransaction(id: id) }
            guard state.simulation.unfinishedTransactionIDs.contains(id) else {
                // A deleted transaction left the unfinished ones too: it is no transaction now.
                guard try state.account.current(id: id) ?? store.transaction(id) != nil else {
                    throw SimulationError.unknownTransaction(id: id)
                }
                throw SimulationError.notUnfinished(id: id)
            }
            var granted = 0
            if state.simulation.ungrantedTransactionIDs.contains(id) {
                if let error = moment.settings.simulatedError(.verificationError) {
                    throw SimulationError.wrongState(
                        id: id,
                        detail: "arrived unverified and still does (\(error.qualifiedName)): the app neither grants "
                            + "nor finishes it; 'iapsim settings set error.verification none' first")
                }
                if let transaction = try state.account.current(id: id) ?? store.transaction(id) {
                    try state.app.add(transaction.purchasedQuantity, of: transaction.productID)
                    granted = transaction.purchasedQuantity
                }
                state.simulation.ungrantedTransactionIDs.removeAll { $0 == id }
            }
            state.simulation.unfinishedTransactionIDs.removeAll { $0 == id }
            return granted
        }
    }
}
