import Foundation
import IAPSimJSON

/// Auto-renewable subscriptions over time: starting a chain, renewing it while auto-renew is
/// on, billing retry and grace period, and what state each chain is in. All of it works on
/// the state alone; what a renewal costs and lasts was captured in `RenewalInfo` at purchase.
enum SubscriptionEngine {
    /// A generous bound on the renewals written in one step, so a fast time rate and a big
    /// clock jump cannot run away: past it, the chain goes straight to the period that holds
    /// the new time (those between are not written), so the step still ends up to date.
    static let renewalLimit = 10_000

    /// `Product.SubscriptionInfo.RenewalState` of the chain `info` at `date`.
    static func renewalState(_ info: RenewalInfo, latest: Transaction, at date: Date)
        -> AccountStatus.SubscriptionStatus.State
    {
        if latest.revocationDate != nil { return .revoked }
        if let end = latest.expirationDate, end > date { return .subscribed }
        switch info.phase {
        case .inGracePeriod(let expires, _) where expires > date: return .inGracePeriod
        case .inGracePeriod, .inBillingRetry: return .inBillingRetryPeriod
        case .active, .expired, .revoked: return .expired
        }
    }

    /// The latest transaction of each chain, with its renewal info.
    static func chains(in state: PurchaseState) -> [(info: RenewalInfo, latest: Transaction)] {
        state.simulation.renewals.compactMap { info in
            state.account.chainLatest(info.originalID).map { (info, $0) }
        }
    }

    /// Brings every chain up to `date`: renewals while auto-renew is on, or billing retry
    /// when renewals have billing issues; a grace period or billing retry that ran out ends,
    /// and a chain that stopped renewing expires. Each event is notified at its own time.
    static func advance(_ state: inout PurchaseState, to date: Date, settings: SessionSettings) throws {
        for index in state.simulation.renewals.indices {
            var info = state.simulation.renewals[index]
            guard var latest = state.account.chainLatest(info.originalID), latest.revocationDate == nil
            else { continue }
            if info.isInBillingRetry {
                settleBillingRetry(&info, latest: latest, at: date, in: &state)
                state.simulation.renewals[index] = info
                continue
            }
            var renewals = 0
            // A monthly plan's payments are owed to the commitment's end, auto-renew or not.
            while info.willAutoRenew || info.isCommitted,
                let end = latest.expirationDate, end <= date, renewals < renewalLimit
            {
                if info.priceIncrease?.status == .pending, info.introductoryPeriodsRemaining == 0 {
                    // Apple, "Managing Price Increases": a subscriber who has not agreed to an
                    // increase that needs consent is not renewed; the subscription expires.
                    info.willAutoRenew = false
                    info.expirationReason = .didNotConsentToPriceIncrease
                    break
                }
                if settings.billingRetry {
                    // Apple's RenewalInfo in billing retry: expirationReason billingError.
                    info.expirationReason = .billingError
                    let retryEnds = ISO8601Date.clamped(end + settings.timeRate.billingRetryPeriod)
                    let grace = ISO8601Date.clamped(end + settings.timeRate.gracePeriod(for: info.autoRenewPeriod))
                    info.phase =
                        settings.gracePeriod
                        ? .inGracePeriod(expires: grace, retryEnds: retryEnds) : .inBillingRetry(ends: retryEnds)
                    state.notify(
                        .didFailToRenew, settings.gracePeriod ? .gracePeriod : nil, at: end, transaction: latest,
                        renewal: info, status: settings.gracePeriod ? .gracePeriod : .billingRetry)
                    // A grace period, or billing retry, already over by `date` ends now too.
                    settleBillingRetry(&info, latest: latest, at: date, in: &state)
                    break
                }
                var start = end
                if renewals == renewalLimit - 1 {
                    start = lastPeriodStart(
                        notAfter: date, from: end, period: nextPeriod(info).period, rate: settings.timeRate)
                }
                latest = try renew(&state, &info, from: start, settings: settings)
                renewals += 1
            }
            if !info.willAutoRenew, info.phase == .active, let end = latest.expirationDate, end <= date {
                info.phase = .expired
                state.notify(
                    .expired, expiredSubtype(info), at: end, transaction: latest, renewal: info, status: .expired)
            }
            state.simulation.renewals[index] = info
        }
    }

    /// Apple's "notificationType": EXPIRED / PRICE_INCREASE when the customer did not consent
    /// to a price increase, VOLUNTARY when auto-renew was turned off.
    static func expiredSubtype(_ info: RenewalInfo) -> ServerNotification.Subtype {
        info.expirationReason == .didNotConsentToPriceIncrease ? .priceIncrease : .voluntary
    }

    /// Turns the chain's auto-renew off for `reason` at `date` — the customer turned it off,
    /// declined a price increase, or asked for a refund — and notifies
    /// `DID_CHANGE_RENEWAL_STATUS` / `AUTO_RENEW_DISABLED` if it was on (Apple, "subtype": "the
    /// customer turned off subscription auto-renewal, or the App Store turned off subscription
    /// auto-renewal after the customer requested a refund").
    ///
    /// With auto-renew off the App Store has nothing left to retry, and a subscription whose
    /// renewal failed expires now (`EXPIRED` / `VOLUNTARY`, or `PRICE_INCREASE` for a declined
    /// increase), in the Billing Grace Period as past it. Apple, "Testing failing subscription
    /// renewals and In-App Purchases": a customer who cancels during the grace period
    /// cancels the subscription immediately, and it is no longer entitled; and
    /// ("responseBody.Pending_renewal_info") the App Store pauses billing retry and removes the
    /// transaction from `pending_renewal_info` (`cancelledInGracePeriod`).
    static func turnAutoRenewOff(
        _ info: inout RenewalInfo, reason: RenewalInfo.ExpirationReason, latest: Transaction, at date: Date,
        in state: inout PurchaseState
    ) {
        let wasOn = info.willAutoRenew
        info.willAutoRenew = false
        info.expirationReason = reason
        guard wasOn else { return }
        state.notify(
            .didChangeRenewalStatus, .autoRenewDisabled, at: date, transaction: latest, renewal: info,
            status: PurchaseState.notificationStatus(info, latest: latest, at: date))
        guard info.phase.isInBillingRetry else { return }
        if case .inGracePeriod = info.phase { info.cancelledInGracePeriod = true }
        info.phase = .expired
        state.notify(.expired, expiredSubtype(info), at: date, transaction: latest, renewal: info, status: .expired)
    }

    /// Turns the chain's auto-renew back on at `date`, notifying `AUTO_RENEW_ENABLED` if it
    /// was off. In the grace period billing retry goes on to its usual end.
    static func turnAutoRenewOn(
        _ info: inout RenewalInfo, latest: Transaction, at date: Date, settings: SessionSettings,
        in state: inout PurchaseState
    ) {
        let wasOff = !info.willAutoRenew
        info.willAutoRenew = true
        info.expirationReason = nil
        if case .inGracePeriod(let expires, _) = info.phase {
            info.expirationReason = .billingError
            if wasOff, let failed = latest.expirationDate {
                info.phase = .inGracePeriod(
                    expires: expires, retryEnds: ISO8601Date.clamped(failed + settings.timeRate.billingRetryPeriod))
            }
        }
        guard wasOff else { return }
        state.notify(
            .didChangeRenewalStatus, .autoRenewEnabled, at: date, transaction: latest, renewal: info,
            status: PurchaseState.notificationStatus(info, latest: latest, at: date))
    }

    /// Billing retry up to `date`, each end notified at its own time. Apple, "Reducing
    /// involuntary subscriber churn": access ends with the grace period
    /// (`GRACE_PERIOD_EXPIRED`); billing retry goes on until a renewal recovers the chain, or
    /// gives up and the subscription expires (`EXPIRED` / `BILLING_RETRY`, `expirationReason`
    /// `billingError`).
    static func settleBillingRetry(
        _ info: inout RenewalInfo, latest: Transaction, at date: Date, in state: inout PurchaseState
    ) {
        if case .inGracePeriod(let expires, _) = info.phase, expires <= date, !info.willAutoRenew {
            // A state written before cancelling in the grace period ended the subscription at
            // once (`turnAutoRenewOff`) may hold a grace period with auto-renew off: it expires
            // with the grace period.
            info.phase = .expired
            state.notify(
                .expired, expiredSubtype(info), at: expires, transaction: latest, renewal: info, status: .expired)
            return
        }
        if case .inGracePeriod(let expires, let retryEnds) = info.phase, expires <= date {
            info.phase = .inBillingRetry(ends: retryEnds)
            state.notify(.gracePeriodExpired, at: expires, transaction: latest, renewal: info, status: .billingRetry)
        }
        if case .inBillingRetry(let ends?) = info.phase, ends <= date {
            info.phase = .expired
            info.willAutoRenew = false
            info.expirationReason = .billingError
            state.notify(.expired, .billingRetry, at: ends, transaction: latest, renewal: info, status: .expired)
        }
    }

    /// A renewal transaction starting at `start`, for the chain's auto-renew product.
    /// - Parameter recovered: when billing recovered, for a renewal that ends billing retry
    ///   (`DID_RENEW` / `BILLING_RECOVERY`, dated then: a renewal recovered in the grace period
    ///   keeps its period's start, but the App Store learns of it when the payment goes through).
    @discardableResult
    static func renew(
        _ state: inout PurchaseState, _ info: inout RenewalInfo, from start: Date, settings: SessionSettings,
        recovered: Date? = nil
    ) throws -> Transaction {
        let origin = state.account.chainLatest(info.originalID)
        if info.introductoryPeriodsRemaining == 0, let increase = info.priceIncrease, increase.status == .agreed {
            // The agreed (or notified) price increase takes effect with this renewal.
            info.autoRenewPrice = increase.newPrice
            info.priceIncrease = nil
        }
        let (period, price, offer) = nextPeriod(info)
        var periods = 1
        var terms: (id: String?, mode: SubscriptionOffer.PaymentMode)?
        if let pending = info.pendingOffer, info.introductoryPeriodsRemaining == 0 {
            // An offer a subscriber redeemed starts now: free and pay-up-front ones cover their
            // periods at once, pay-as-you-go ones bill each period at the offer's price.
            info.pendingOffer = nil
            terms = (pending.id, pending.paymentMode)
            if pending.paymentMode == .payAsYouGo {
                info.introductoryPeriodsRemaining = max(pending.periodCount - 1, 0)
                info.introductoryPrice = pending.price
                info.introductoryPeriod = pending.period
                info.offerType = pending.type
                info.offerID = pending.id
            } else {
                periods = pending.periodCount
            }
        } else if offer != nil {
            info.introductoryPeriodsRemaining -= 1
            terms = (info.offerID, .payAsYouGo)
        }
        var transaction = Transaction(
            id: try state.takeTransactionID(), originalID: info.originalID, productID: info.autoRenewProductID,
            productType: .autoRenewable, purchaseDate: start,
            originalPurchaseDate: origin?.originalPurchaseDate ?? start,
            expirationDate: settings.timeRate.end(of: period, from: start, count: periods),
            subscriptionGroupID: info.subscriptionGroupID,
            reason: .renewal, price: price, currency: info.currency, storefrontCountryCode: info.storefrontCountryCode)
        if let terms {
            transaction.offerType = offer
            transaction.offerPaymentMode = terms.mode
            transaction.offerID = terms.id
            transaction.offerPeriod =
                period.times(periods)
        }
        if let commitment = info.commitment {
            transaction.billingPlanType = .monthly
            if commitment.paid >= commitment.payments {
                // The commitment's payments are made: a new commitment starts with this one.
                info.commitment?.endDate = settings.timeRate.end(of: commitment.period, from: start)
                info.commitment?.paid = 1
            } else {
                info.commitment?.paid += 1
            }
            transaction.commitmentInfo = info.commitment?.paymentInfo(monthlyPrice: price)
        }
        if info.introductoryPeriodsRemaining == 0 {
            info.offerType = nil
            info.offerID = nil
        }
        // A renewal belongs to the same purchase: the app's token and who owns it carry over.
        transaction.appAccountToken = origin?.appAccountToken
        transaction.ownershipType = origin?.ownershipType ?? .purchased
        if info.currentProductID != info.autoRenewProductID {
            state.app.revoke(info.currentProductID)
            state.app.deliver(info.autoRenewProductID)
            info.currentProductID = info.autoRenewProductID
        }
        info.phase = .active
        info.cancelledInGracePeriod = false
        // A commitment's payment with auto-renew off keeps saying why it will end.
        if info.willAutoRenew { info.expirationReason = nil }
        try state.account.record(transaction, isNew: true)
        // A renewal happens outside the app: it waits for the app to finish it
        // (`StoreSession.Moment.outsideTheApp`).
        state.simulation.unfinishedTransactionIDs.append(transaction.id)
        state.notify(
            .didRenew, recovered == nil ? nil : .billingRecovery, at: recovered ?? start, transaction: transaction,
            renewal: info, status: .active)
        return transaction
    }

    /// The period and price of the chain's next renewal: an introductory offer's while it has
    /// periods left, the auto-renew product's after.
    static func nextPeriod(_ info: RenewalInfo) -> (
        period: SubscriptionPeriod, price: Decimal, offer: Transaction.OfferType?
    ) {
        if let pending = info.pendingOffer, info.introductoryPeriodsRemaining == 0 {
            return (pending.period, pending.price, pending.type)
        }
        if info.introductoryPeriodsRemaining > 0, let period = info.introductoryPeriod,
            let price = info.introductoryPrice
        {
            return (period, price, info.offerType ?? .introductory)
        }
        return (info.autoRenewPeriod, info.nextRenewalPrice, nil)
    }

    /// The start of the last period of a chain renewing from `start` that begins at or before
    /// `date`: where a catch-up past `renewalLimit` goes. Found from the average length of a
    /// period, then corrected a period at a time, so it costs the same for any gap.
    static func lastPeriodStart(notAfter date: Date, from start: Date, period: SubscriptionPeriod, rate: TimeRate)
        -> Date
    {
        guard date > start else { return start }
        let gap = date.timeIntervalSince(start)
        if let interval = rate.renewalDuration(of: period), interval > 0 {
            return start + (gap / interval).rounded(.down) * interval
        }
        let days: Double =
            switch period.unit {
            case .day: 1
            case .week: 7
            case .month: 30.436_875
            case .year: 365.242_5
            }
        var count = Int(min(gap / (days * 86_400 * Double(period.value)), 1e12))
        while count > 0, period.advance(start, times: count) > date { count -= 1 }
        while period.advance(start, times: count + 1) <= date { count += 1 }
        return count == 0 ? start : period.advance(start, times: count)
    }
}
