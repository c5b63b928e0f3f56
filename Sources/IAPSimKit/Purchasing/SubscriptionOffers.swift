import Foundation

/// What a buyer asks to redeem with a purchase.
public enum OfferRequest: Sendable, Equatable {
    /// `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)` or
    /// `.winBackOffer(_:)`: `buy --offer ID`, a promotional offer with its signature, or a
    /// win-back offer.
    /// `appAccountToken` is the purchase's (`Product.PurchaseOption.appAccountToken`), which
    /// the signature covers.
    case offer(id: String, signature: PromotionalOfferSignature?, appAccountToken: UUID? = nil)
    /// The offer code redemption sheet (`AppStore.presentOfferCodeRedeemSheet`):
    /// `redeem-offer-code`.
    case code(id: String)
}

/// An offer a purchase redeems, as its quote worked it out.
public struct AppliedOffer: Sendable, Equatable {
    public var type: Transaction.OfferType
    public var offer: SubscriptionOffer
    /// Redeemed by a subscriber of the group: it starts at the chain's next renewal (Apple,
    /// "Supporting offer codes in your app": an existing subscriber's offer begins when the
    /// current period ends).
    public var atNextRenewal: Bool
    /// An offer code that stacks on the introductory offer: it starts when that ends.
    public var afterIntroductoryOffer: Bool
    /// Whether a promotional offer's signature was checked against the catalog's
    /// `subscriptionOffersKeyPair` (false when the catalog has none).
    public var signatureChecked: Bool

    var pending: RenewalInfo.PendingOffer {
        RenewalInfo.PendingOffer(
            type: type, id: offer.id, paymentMode: offer.paymentMode, period: offer.period,
            periodCount: offer.periodCount, price: offer.paymentMode == .freeTrial ? 0 : offer.price)
    }
}

extension StoreSession {
    /// How long a promotional offer's signature stays good after its timestamp (Apple,
    /// "Generating a signature for promotional offers": the App Store refuses older ones).
    static let offerSignatureLifetime: TimeInterval = 24 * 3_600
    /// How far ahead of the real clock a signature's timestamp may be: the developer's server
    /// that signed it may run on another machine whose clock is a little ahead. A signature
    /// from further in the future is refused, as is one whose nonce was redeemed before.
    public static let offerSignatureClockSkew: TimeInterval = 60

    /// Whether the buyer may redeem what `request` asks for on `product`, as StoreKit decides
    /// it, and how: `Product.PurchaseError` when not.
    /// - Parameter kind: what buying the product does without an offer.
    static func resolve(
        _ request: OfferRequest, product: Product, kind: PurchaseQuote.Kind, catalog: Catalog, state: PurchaseState,
        moment: Moment, realNow: Date
    ) -> (offer: AppliedOffer?, error: SimulatedError?) {
        func fail(_ error: SimulatedError) -> (offer: AppliedOffer?, error: SimulatedError?) { (nil, error) }
        guard let subscription = product.subscription else { return fail(.purchase(.invalidOfferIdentifier)) }
        let group = subscription.groupID
        let hadSubscription = state.account.groupOrigin(group) != nil
        let active = SubscriptionEngine.isGroupActive(group, in: state, at: moment.now)
        var type: Transaction.OfferType
        var offer: SubscriptionOffer
        var checked = false
        switch request {
        case .offer(let id, let signature, let appAccountToken):
            if let promotional = subscription.promotionalOffers.first(where: { $0.id == id }) {
                // Apple, "Implementing promotional offers in your app": for current and lapsed
                // subscribers of the group.
                guard hadSubscription else { return fail(.purchase(.ineligibleForOffer)) }
                if let key = catalog.store.offerSigningKey {
                    guard let signature else { return fail(.purchase(.missingOfferParameters)) }
                    let valid = try? signature.isValid(
                        for: key, bundleID: moment.settings.bundleID, productID: product.id, offerID: id,
                        appAccountToken: appAccountToken?.appleString)
                    let age = realNow.timeIntervalSince1970 - Double(signature.timestamp) / 1000
                    // Apple: a nonce is used once; a timestamp is the moment of signing.
                    guard valid == true, age <= offerSignatureLifetime, age >= -offerSignatureClockSkew,
                        !state.simulation.usedOfferNonces.contains(where: { $0.nonce == signature.nonce })
                    else { return fail(.purchase(.invalidOfferSignature)) }
                    checked = true
                }
                (type, offer) = (.promotional, promotional)
            } else if let winBack = subscription.winBackOffers.first(where: { $0.id == id }) {
                // Apple, "Supporting win-back offers in your app": for lapsed subscribers;
                // in local testing, the offer's eligibility switch in the .storekit file. Apple,
                // "eligibleWinBackOfferIDs": not while the group's subscription is in a grace
                // period or billing retry.
                let retrying = SubscriptionEngine.chains(in: state).contains { info, latest in
                    let state = SubscriptionEngine.renewalState(info, latest: latest, at: moment.now)
                    return info.subscriptionGroupID == group && latest.ownershipType == .purchased
                        && state == .inBillingRetryPeriod
                }
                guard winBack.isEligible, hadSubscription, !active, !retrying else {
                    return fail(.purchase(.ineligibleForOffer))
                }
                (type, offer) = (.winBack, winBack)
            } else {
                return fail(.purchase(.invalidOfferIdentifier))
            }
        case .code(let id):
            guard let code = subscription.offerCodes.first(where: { $0.id == id }) else {
                return fail(.purchase(.invalidOfferIdentifier))
            }
            let customer: SubscriptionOffer.CodeEligibility = active ? .existing : hadSubscription ? .expired : .new
            guard code.eligibility.isEmpty || code.eligibility.contains(customer) else {
                return fail(.purchase(.ineligibleForOffer))
            }
            (type, offer) = (.code, code)
        }
        var applied = AppliedOffer(
            type: type, offer: offer, atNextRenewal: false, afterIntroductoryOffer: false, signatureChecked: checked)
        switch kind {
        case .alreadySubscribed, .keepCurrentPlan, .downgrade: applied.atNextRenewal = true
        case .introductoryOffer: applied.afterIntroductoryOffer = type == .code && offer.isStackable
        case .purchase, .upgrade, .redownload: break
        }
        return (applied, nil)
    }
}

extension SimulationState {
    /// Records that the promotional offer signature `signature` was redeemed, so its nonce is
    /// refused from now on, and forgets the nonces of signatures too old to be accepted again:
    /// any whose timestamp is more than the lifetime (and the skew) before this one's.
    mutating func redeem(_ signature: PromotionalOfferSignature) {
        let horizon =
            Double(signature.timestamp)
            - (StoreSession.offerSignatureLifetime + StoreSession.offerSignatureClockSkew) * 1000
        usedOfferNonces.removeAll { Double($0.timestamp) < horizon }
        usedOfferNonces.append(OfferNonce(nonce: signature.nonce, timestamp: signature.timestamp))
    }
}

extension StoreSession {
    /// `RenewalInfo.eligibleWinBackOfferIDs` of a subscription: the win-back offers of its
    /// product the customer may redeem now — it lapsed and nothing in its group is active — as
    /// the `.storekit` file's eligibility switch allows (Apple, "Supporting win-back offers in
    /// your app"). The signed JWSRenewalInfo and `status --json` both say it.
    /// - Parameter all: every subscription of the account, to tell whether the group is active.
    public func eligibleWinBackOfferIDs(
        for status: AccountStatus.SubscriptionStatus, among all: [AccountStatus.SubscriptionStatus]
    ) -> [String] {
        let groupActive = all.contains {
            $0.subscriptionGroupID == status.subscriptionGroupID
                && ($0.state == .subscribed || $0.state == .inGracePeriod)
        }
        return eligibleWinBackOfferIDs(
            productID: status.productID, state: status.state, ownership: status.transaction.ownershipType,
            groupActive: groupActive)
    }

    /// The rule itself, for a chain in `state` whose group has (or has not) an active chain.
    func eligibleWinBackOfferIDs(
        productID: String, state: AccountStatus.SubscriptionStatus.State, ownership: Transaction.OwnershipType,
        groupActive: Bool
    ) -> [String] {
        guard state == .expired, !groupActive, ownership == .purchased else { return [] }
        return winBackOffers[productID] ?? []
    }
}
