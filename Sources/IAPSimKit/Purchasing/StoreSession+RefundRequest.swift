import Foundation

extension StoreSession {
    /// StoreKit's `Transaction.beginRefundRequest(in:)`: the customer asks the App Store for a
    /// refund, which stays pending until the App Store decides (`refund` grants it, `refund
    /// --decline` declines it). The App Store asks the developer for consumption information
    /// first: `CONSUMPTION_REQUEST`, carrying the customer's `consumptionRequestReason`, for
    /// every product type. Apple's pages disagree here: "notificationType" still says "a
    /// consumable in-app purchase or auto-renewable subscription", while the newer
    /// "ConsumptionRequest" and "Send Consumption Information" (App Store Server API 1.19) take
    /// consumption information for "any type of product"; iapsim follows the newer. For a
    /// subscription the App Store also turns auto-renew off, which in the Billing Grace Period
    /// ends it at once (`SubscriptionEngine.turnAutoRenewOff`).
    /// - Parameter reason: the customer's reason; `other` when not given, as the notification
    ///   always carries one.
    /// - Throws: `SimulationError.duplicateRefundRequest` when one waits for this transaction
    ///   (`Transaction.RefundRequestError.duplicateRequest`); `.refundNotRequestable` when it
    ///   is already refunded; `.unknownTransaction`.
    public func requestRefund(_ id: UInt64, reason: RefundRequest.Reason?) throws -> RefundRequest {
        try transact { state, moment in
            // The refund request sheet fails with the simulated Refund Request error
            // (`SKTestSession.setSimulatedError(_:forAPI: .refundRequest)`).
            if let error = moment.settings.simulatedError(.refundRequestError) {
                throw SimulationError.simulated(api: "Refund request", error: error)
            }
            let transaction = try Self.liveTransaction(id, in: state, store: store)
            guard !state.simulation.refundRequests.contains(where: { $0.transactionID == id }) else {
                throw SimulationError.duplicateRefundRequest(id: id)
            }
            guard transaction.revocationDate == nil else {
                throw SimulationError.refundNotRequestable(id: id, detail: "is already refunded")
            }
            let request = RefundRequest(
                transactionID: id, productID: transaction.productID, requestDate: moment.now,
                reason: reason ?? RefundRequest.Reason.unstated)
            state.simulation.refundRequests.append(request)
            if transaction.productType == .autoRenewable,
                let index = state.simulation.renewals.firstIndex(where: { $0.originalID == transaction.originalID }),
                let latest = state.account.chainLatest(transaction.originalID),
                !state.simulation.renewals[index].phase.hasEnded
            {
                // Apple, "subtype": AUTO_RENEW_DISABLED when "the App Store turned off
                // subscription auto-renewal after the customer requested a refund". A declined
                // request leaves it off: the customer turns it back on if they wish.
                var info = state.simulation.renewals[index]
                SubscriptionEngine.turnAutoRenewOff(
                    &info, reason: .autoRenewDisabled, latest: latest, at: moment.now, in: &state)
                state.simulation.renewals[index] = info
            }
            let (renewal, status) = Self.subscriptionContext(of: transaction, in: state, at: moment.now)
            state.notify(
                .consumptionRequest, at: moment.now, transaction: transaction, renewal: renewal, status: status,
                consumptionRequestReason: request.reason)
            return request
        }
    }

    /// The App Store declines the customer's refund request (`REFUND_DECLINED`): nothing
    /// changes but that the request ends.
    /// - Throws: `SimulationError.noRefundRequest` when none waits for this transaction.
    public func declineRefund(_ id: UInt64) throws -> (request: RefundRequest, transaction: Transaction) {
        try transact { state, moment in
            let transaction = try Self.liveTransaction(id, in: state, store: store)
            guard let request = state.simulation.refundRequests.first(where: { $0.transactionID == id }) else {
                throw SimulationError.noRefundRequest(id: id)
            }
            state.simulation.refundRequests.removeAll { $0.transactionID == id }
            let (renewal, status) = Self.subscriptionContext(of: transaction, in: state, at: moment.now)
            state.notify(.refundDeclined, at: moment.now, transaction: transaction, renewal: renewal, status: status)
            return (request, transaction)
        }
    }

    /// The App Store reverses a refund it granted, after a dispute the customer raised
    /// (`REFUND_REVERSED`; Apple's "notificationType": the app reinstates the content or
    /// services it revoked). The transaction's revocation is undone, and what the refund took
    /// from the app's record comes back: a consumable's quantity, a non-consumable, a
    /// subscription whose period has not ended (which still does not renew: the refund turned
    /// auto-renew off).
    /// - Throws: `SimulationError.notRefunded` when the transaction was not refunded.
    public func reverseRefund(_ id: UInt64) throws -> Transaction {
        try transact { state, moment in
            var transaction = try Self.liveTransaction(id, in: state, store: store)
            guard transaction.revocationDate != nil else { throw SimulationError.notRefunded(id: id) }
            transaction.reinstate()
            try state.account.record(transaction, isNew: false)
            switch transaction.productType {
            case .consumable:
                try state.app.add(transaction.purchasedQuantity, of: transaction.productID)
            case .nonConsumable, .nonRenewable:
                if state.account.latest(for: transaction.productID)?.isEntitlement(at: moment.now) == true {
                    state.app.deliver(transaction.productID)
                }
            case .autoRenewable:
                if let latest = state.account.chainLatest(transaction.originalID), latest.isEntitlement(at: moment.now)
                {
                    state.app.deliver(latest.productID)
                    if let index = state.simulation.renewals.firstIndex(where: {
                        $0.originalID == transaction.originalID
                    }) {
                        // Active again, so its end is notified when it comes.
                        state.simulation.renewals[index].phase = .active
                        state.simulation.renewals[index].expirationReason = .autoRenewDisabled
                    }
                }
            }
            let (renewal, status) = Self.subscriptionContext(of: transaction, in: state, at: moment.now)
            state.notify(.refundReversed, at: moment.now, transaction: transaction, renewal: renewal, status: status)
            return transaction
        }
    }

    /// The transaction `id` in its latest version, if the account has it and it is not deleted.
    private static func liveTransaction(_ id: UInt64, in state: PurchaseState, store: StateStore) throws -> Transaction
    {
        guard state.hasTransaction(id), let transaction = try state.account.current(id: id) ?? store.transaction(id),
            transaction.deletionDate == nil
        else {
            throw SimulationError.unknownTransaction(id: id)
        }
        return transaction
    }

    /// For a subscription's transaction, its chain's renewal info and notification status now.
    private static func subscriptionContext(of transaction: Transaction, in state: PurchaseState, at date: Date)
        -> (RenewalInfo?, ServerNotification.Status?)
    {
        guard transaction.productType == .autoRenewable,
            let info = state.simulation.renewals.first(where: { $0.originalID == transaction.originalID }),
            let latest = state.account.chainLatest(transaction.originalID)
        else { return (nil, nil) }
        return (info, PurchaseState.notificationStatus(info, latest: latest, at: date))
    }
}
