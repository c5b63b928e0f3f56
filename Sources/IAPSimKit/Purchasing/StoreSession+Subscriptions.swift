import Foundation

/// A subscription chain after a change: its renewal info and when its current period ends.
public struct SubscriptionChange: Sendable, Equatable {
    public var info: RenewalInfo
    public var expirationDate: Date?
}

extension StoreSession {
    /// Turns auto-renew off (`disableAutoRenewForTransaction`): the subscription stays active
    /// to the end of its period, then expires. After a failed renewal — in the Billing Grace
    /// Period or billing retry past it — it ends the subscription at once.
    public func cancelSubscription(_ productID: String) throws -> SubscriptionChange {
        try changeChain(productID) { info, state, latest, moment in
            info.autoRenewProductID = info.currentProductID  // a pending downgrade goes with it
            SubscriptionEngine.turnAutoRenewOff(
                &info, reason: .autoRenewDisabled, latest: latest, at: moment.now, in: &state)
        }
    }

    /// Turns auto-renew back on (`enableAutoRenewForTransaction`).
    /// - Throws: `SimulationError.cancelledInGracePeriod` for a subscription that turning
    ///   auto-renew off in its grace period ended: billing retry does not come back, a
    ///   purchase starts it again.
    public func resumeSubscription(_ productID: String) throws -> SubscriptionChange {
        try changeChain(productID) { info, state, latest, moment in
            if info.cancelledInGracePeriod, info.phase == .expired {
                throw SimulationError.cancelledInGracePeriod(productID: productID)
            }
            SubscriptionEngine.turnAutoRenewOn(
                &info, latest: latest, at: moment.now, settings: moment.settings, in: &state)
        }
    }

    /// `SKTestSession.expireSubscription(productIdentifier:)`: it ends now and does not renew.
    public func expireSubscription(_ productID: String) throws -> SubscriptionChange {
        try changeChain(productID) { info, state, latest, moment in
            try Self.endPeriod(of: latest, at: moment.now, in: &state)
            info.willAutoRenew = false
            info.expirationReason = .autoRenewDisabled
            state.app.revoke(info.currentProductID)
            if !info.phase.hasEnded {
                info.phase = .expired
                state.notify(
                    .expired, .voluntary, at: moment.now, transaction: state.account.chainLatest(info.originalID),
                    renewal: info, status: .expired)
            }
        }
    }

    /// `SKTestSession.forceRenewalOfSubscription(productIdentifier:)`: a renewal now.
    public func renewSubscription(_ productID: String) throws -> Transaction {
        var renewal: Transaction?
        _ = try changeChain(productID) { info, state, latest, moment in
            try Self.endPeriod(of: latest, at: moment.now, in: &state)  // where the forced one begins
            info.willAutoRenew = true
            info.expirationReason = nil
            renewal = try SubscriptionEngine.renew(&state, &info, from: moment.now, settings: moment.settings)
            state.app.deliver(info.currentProductID)
        }
        return renewal!
    }

    /// Cuts `transaction`'s period short at `date`, if it runs past it.
    private static func endPeriod(of transaction: Transaction, at date: Date, in state: inout PurchaseState) throws {
        guard let end = transaction.expirationDate, end > date else { return }
        var ended = transaction
        ended.expirationDate = date
        try state.account.record(ended, isNew: false)
    }

    /// Finds the chain whose current or next product is `productID` and changes it.
    private func changeChain(
        _ productID: String, _ change: (inout RenewalInfo, inout PurchaseState, Transaction, Moment) throws -> Void
    ) throws -> SubscriptionChange {
        try transact { state, moment in
            guard
                let index = state.simulation.renewals.lastIndex(where: {
                    $0.currentProductID == productID || $0.autoRenewProductID == productID
                }),
                let latest = state.account.chainLatest(state.simulation.renewals[index].originalID)
            else { throw SimulationError.notSubscribed(productID: productID) }
            var info = state.simulation.renewals[index]
            try change(&info, &state, latest, moment)
            state.simulation.renewals[index] = info
            // Under a monthly plan's commitment the paid months run on to the commitment's end.
            let periodEnd = state.account.chainLatest(info.originalID)?.expirationDate
            let commitmentEnd = info.willAutoRenew ? nil : info.commitment.map(\.endDate)
            return SubscriptionChange(
                info: info, expirationDate: [periodEnd, commitmentEnd].compactMap { $0 }.max())
        }
    }
}
