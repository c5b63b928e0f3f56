import Foundation
import IAPSimJSON

/// Buying into a subscription group: what a purchase does to the group's chain, and the
/// chain it starts.
extension SubscriptionEngine {
    /// What buying `product` does to its group: a first purchase or a re-subscription starts
    /// (or restarts) the chain; with a level active, a higher level takes effect at once, a
    /// lower one at the next renewal, and one of the same level at once if its period is the
    /// same and at the next renewal otherwise (Apple, "Offering subscription upgrades and
    /// downgrades").
    enum GroupChange {
        case start
        case alreadySubscribed(Transaction)
        case immediate(replacing: Transaction)
        case atNextRenewal(current: Transaction)
    }

    static func change(
        buying product: Product, in state: PurchaseState, at date: Date, level: (String) -> Int?
    ) -> GroupChange {
        guard let subscription = product.subscription else { return .start }
        // A chain the family shares is not the buyer's own: buying starts or changes the own one.
        for (info, latest) in chains(in: state)
        where info.subscriptionGroupID == subscription.groupID && latest.ownershipType == .purchased {
            let current = renewalState(info, latest: latest, at: date)
            guard current == .subscribed || current == .inGracePeriod else { continue }
            if latest.productID == product.id { return .alreadySubscribed(latest) }
            guard let currentLevel = level(latest.productID) else { return .immediate(replacing: latest) }
            if subscription.groupLevel < currentLevel { return .immediate(replacing: latest) }
            if subscription.groupLevel > currentLevel { return .atNextRenewal(current: latest) }
            return info.autoRenewPeriod == subscription.period
                ? .immediate(replacing: latest) : .atNextRenewal(current: latest)
        }
        return .start
    }

    /// Whether a chain of `group` gives access at `date` (subscribed, or in its grace period).
    /// - Parameter ownership: only the chains the account owns this way; nil for any.
    static func isGroupActive(
        _ group: String, in state: PurchaseState, at date: Date, ownership: Transaction.OwnershipType? = nil
    ) -> Bool {
        chains(in: state).contains { info, latest in
            info.subscriptionGroupID == group && (ownership == nil || latest.ownershipType == ownership)
                && [.subscribed, .inGracePeriod].contains(renewalState(info, latest: latest, at: date))
        }
    }

    /// Whether a new subscription in `group` gets the introductory offer: only if the account
    /// never subscribed in the group (Apple, "Implementing introductory offers in your app").
    static func isEligibleForIntroOffer(group: String, in state: PurchaseState) -> Bool {
        state.account.groupOrigin(group) == nil
    }

    /// Fills in a new subscription transaction and its renewal info.
    static func start(
        _ transaction: inout Transaction, product: Product, subscription: SubscriptionInfo,
        state: inout PurchaseState, at date: Date, settings: SessionSettings, offer redeemed: AppliedOffer? = nil,
        billingPlan: BillingPlan? = nil
    ) throws {
        let group = subscription.groupID
        transaction.subscriptionGroupID = group
        let first = state.account.groupOrigin(group, ownership: transaction.ownershipType)
        if let first {
            transaction.originalID = first.originalID
            transaction.originalPurchaseDate = first.originalPurchaseDate
        }
        for var replaced in state.account.current
        where replaced.subscriptionGroupID == group && !replaced.isUpgraded
            && replaced.ownershipType == transaction.ownershipType
            && (replaced.expirationDate ?? .distantPast) > date && replaced.productID != product.id
        {
            replaced.isUpgraded = true
            try state.account.record(replaced, isNew: false)
            state.app.revoke(replaced.productID)
        }
        var info = RenewalInfo(
            originalID: transaction.originalID, subscriptionGroupID: group, currentProductID: product.id,
            autoRenewProductID: product.id, willAutoRenew: true, autoRenewPeriod: subscription.period,
            autoRenewPrice: product.price, currency: transaction.currency,
            storefrontCountryCode: transaction.storefrontCountryCode, introductoryPeriodsRemaining: 0,
            introductoryPrice: nil, introductoryPeriod: nil, phase: .active, expirationReason: nil)
        info.recentSubscriptionStartDate = RenewalInfo.recentSubscriptionStart(
            previous: state.simulation.renewals.first { $0.originalID == info.originalID },
            latest: state.account.chainLatest(info.originalID), at: date, lapse: settings.timeRate.subscriptionLapse)
        // An introductory offer is for a first subscription in the group only, and is the
        // buyer's: a shared subscription comes as the organiser pays for it. An offer the buyer
        // redeems takes its place, unless it stacks on it (an offer code) and follows it.
        var applied: (type: Transaction.OfferType, offer: SubscriptionOffer)?
        if let plan = billingPlan {
            // A monthly billing plan: a month at the plan's price now, and every month within a
            // commitment of the product's period (format 5's billingPlans). Its introductory
            // offers belong to the paid-up-front plan.
            let month = SubscriptionPeriod(value: 1, unit: .month)
            transaction.billingPlanType = .monthly
            transaction.expirationDate = settings.timeRate.end(of: month, from: date)
            transaction.price = plan.price
            info.autoRenewPeriod = month
            info.autoRenewPrice = plan.price
            info.commitment = RenewalInfo.Commitment(
                period: subscription.period, endDate: settings.timeRate.end(of: subscription.period, from: date),
                price: plan.commitmentPrice)
            transaction.commitmentInfo = info.commitment?.paymentInfo(monthlyPrice: plan.price)
            state.simulation.renewals.removeAll { $0.originalID == info.originalID }
            state.simulation.renewals.append(info)
            return
        } else if let redeemed, !redeemed.afterIntroductoryOffer {
            applied = (redeemed.type, redeemed.offer)
        } else if first == nil, transaction.ownershipType == .purchased, let offer = subscription.introductoryOffer {
            applied = (.introductory, offer)
        }
        if let redeemed, redeemed.afterIntroductoryOffer { info.pendingOffer = redeemed.pending }
        if let (type, offer) = applied {
            transaction.offerType = type
            transaction.offerID = type == .introductory ? nil : offer.id
            transaction.offerPaymentMode = offer.paymentMode
            transaction.price = offer.price
            switch offer.paymentMode {
            case .freeTrial, .payUpFront:
                transaction.expirationDate = settings.timeRate.end(
                    of: offer.period, from: date, count: offer.periodCount)
                transaction.offerPeriod = offer.period.times(offer.periodCount)
            case .payAsYouGo:
                transaction.offerPeriod = offer.period
                transaction.expirationDate = settings.timeRate.end(of: offer.period, from: date)
                info.introductoryPeriodsRemaining = max(offer.periodCount - 1, 0)
                info.introductoryPrice = offer.price
                info.introductoryPeriod = offer.period
                if type != .introductory {
                    info.offerType = type
                    info.offerID = offer.id
                }
            }
        } else {
            transaction.expirationDate = settings.timeRate.end(of: subscription.period, from: date)
            transaction.price = product.price
        }
        state.simulation.renewals.removeAll { $0.originalID == info.originalID }
        state.simulation.renewals.append(info)
    }
}
