import Foundation

/// What a price increase operation left: the subscription's renewal info and its period's end.
public struct PriceIncreaseChange: Sendable, Equatable {
    public var productID: String
    public var info: RenewalInfo
    public var increase: PriceIncrease?
    /// `RenewalInfo.priceIncreaseStatus` after the change, as `status` and the signed renewal
    /// info say it (`RenewalInfo.facts`).
    public var priceIncreaseStatus: RenewalInfo.PriceIncreaseStatus
    /// When the current period ends: where the increase applies, or the subscription expires.
    public var expirationDate: Date?
    /// For an increase announced without consent: why Apple would ask the subscriber's
    /// consent to it all the same (`PriceIncrease.consentReason`), or nil.
    public var consentReason: PriceIncrease.ConsentReason? = nil
}

extension StoreSession {
    /// Raises the renewal price of the active subscription to `productID`, as App Store Connect
    /// does for existing subscribers, and tells the subscriber (`PRICE_INCREASE`). Apple,
    /// "Managing Price Increases": an increase that requires consent waits for the subscriber
    /// (`PENDING`; `SKTestSession.requestPriceIncreaseConsentForProduct(identifier:)` in
    /// Xcode's "Testing a price increase"); one that does not is applied at the next renewal
    /// after the notice (`ACCEPTED`). The catalog's price for new purchases is the
    /// configuration file's, as in Xcode.
    /// - Parameters:
    ///   - newPrice: in the subscription's currency; more than the price it renews at now.
    ///   - requiresConsent: whether the subscriber must agree. Apple decides it by the size of
    ///     the increase and the subscriber's region; without consent, the change says when
    ///     Apple would ask it all the same (`consentReason`).
    /// - Throws: `SimulationError.notSubscribed` when no subscription to it renews;
    ///   `.notAPriceIncrease` when `newPrice` is not above the renewal price or not a price in
    ///   the subscription's currency; `.priceTooHigh` above `Currency.maximumPrice`.
    public func increasePrice(_ productID: String, to newPrice: Decimal, requiresConsent: Bool) throws
        -> PriceIncreaseChange
    {
        guard newPrice <= Currency.maximumPrice else {
            throw SimulationError.priceTooHigh(price: newPrice.plainString, maximum: Currency.maximumPrice.plainString)
        }
        var consentReason: PriceIncrease.ConsentReason?
        var change = try changeRenewingChain(productID) { info, state, latest, moment in
            guard newPrice > info.autoRenewPrice, Currency.isValid(newPrice, in: info.currency) else {
                throw SimulationError.notAPriceIncrease(
                    productID: productID, price: newPrice.plainString,
                    current: "\(info.autoRenewPrice.plainString) \(info.currency)")
            }
            if !requiresConsent {
                consentReason = PriceIncrease.consentReason(
                    from: info.autoRenewPrice, to: newPrice, currency: info.currency, period: info.autoRenewPeriod)
            }
            let increase = PriceIncrease(
                newPrice: newPrice, requiresConsent: requiresConsent, status: requiresConsent ? .pending : .agreed,
                date: moment.now)
            info.priceIncrease = increase
            state.notify(
                .priceIncrease, requiresConsent ? .pending : .accepted, at: moment.now, transaction: latest,
                renewal: info, status: PurchaseState.notificationStatus(info, latest: latest, at: moment.now))
        }
        change.consentReason = consentReason
        return change
    }

    /// The subscriber agrees to a pending price increase (`PRICE_INCREASE` / `ACCEPTED`): the
    /// subscription renews at the new price.
    /// - Throws: `SimulationError.noPriceIncrease` when none waits for consent.
    public func consentToPriceIncrease(_ productID: String) throws -> PriceIncreaseChange {
        try changeRenewingChain(productID, requiringAutoRenew: false) { info, state, latest, moment in
            guard var increase = info.priceIncrease, increase.status == .pending else {
                throw SimulationError.noPriceIncrease(productID: productID)
            }
            increase.status = .agreed
            info.priceIncrease = increase
            if info.expirationReason == .didNotConsentToPriceIncrease {
                // Consenting after a decline, before the period ends, keeps the subscription:
                // auto-renew comes back on (`AUTO_RENEW_ENABLED`, as it went off).
                SubscriptionEngine.turnAutoRenewOn(
                    &info, latest: latest, at: moment.now, settings: moment.settings, in: &state)
            }
            state.notify(
                .priceIncrease, .accepted, at: moment.now, transaction: latest, renewal: info,
                status: PurchaseState.notificationStatus(info, latest: latest, at: moment.now))
        }
    }

    /// The subscriber declines a pending price increase: auto-renew goes off
    /// (`DID_CHANGE_RENEWAL_STATUS` / `AUTO_RENEW_DISABLED`), so no increase waits for consent
    /// any more; the subscription stays active to the end of its period and then expires,
    /// `expirationReason` `didNotConsentToPriceIncrease` (`EXPIRED` / `PRICE_INCREASE` then).
    /// - Throws: `SimulationError.noPriceIncrease` when none waits for consent.
    public func declinePriceIncrease(_ productID: String) throws -> PriceIncreaseChange {
        try changeRenewingChain(productID) { info, state, latest, moment in
            guard let increase = info.priceIncrease, increase.status == .pending else {
                throw SimulationError.noPriceIncrease(productID: productID)
            }
            SubscriptionEngine.turnAutoRenewOff(
                &info, reason: .didNotConsentToPriceIncrease, latest: latest, at: moment.now, in: &state)
        }
    }

    /// Finds the active chain that renews to `productID` and changes it.
    /// - Parameter requiringAutoRenew: whether a chain whose auto-renew is off is refused.
    private func changeRenewingChain(
        _ productID: String, requiringAutoRenew: Bool = true,
        _ change: (inout RenewalInfo, inout PurchaseState, Transaction, Moment) throws -> Void
    ) throws -> PriceIncreaseChange {
        try transact { state, moment in
            guard
                let index = state.simulation.renewals.lastIndex(where: {
                    $0.autoRenewProductID == productID || $0.currentProductID == productID
                }),
                let latest = state.account.chainLatest(state.simulation.renewals[index].originalID)
            else { throw SimulationError.notSubscribed(productID: productID) }
            var info = state.simulation.renewals[index]
            let renewalState = SubscriptionEngine.renewalState(info, latest: latest, at: moment.now)
            guard renewalState == .subscribed || renewalState == .inGracePeriod,
                info.autoRenewProductID == productID, info.willAutoRenew || !requiringAutoRenew
            else {
                throw SimulationError.notRenewing(productID: productID)
            }
            try change(&info, &state, latest, moment)
            state.simulation.renewals[index] = info
            let facts = info.facts(
                latest: latest, state: SubscriptionEngine.renewalState(info, latest: latest, at: moment.now))
            return PriceIncreaseChange(
                productID: productID, info: info, increase: info.priceIncrease,
                priceIncreaseStatus: facts.priceIncreaseStatus, expirationDate: latest.expirationDate)
        }
    }
}
