import Foundation

/// `Product.SubscriptionInfo.RenewalInfo` for one subscription chain.
public struct RenewalInfo: Sendable, Equatable {
    /// `RenewalInfo.ExpirationReason` raw values.
    public enum ExpirationReason: String, Codable, Sendable {
        case autoRenewDisabled, billingError, didNotConsentToPriceIncrease, productUnavailable, unknown
    }

    public var originalID: UInt64
    public var subscriptionGroupID: String
    /// The product of the current period.
    public var currentProductID: String
    /// `autoRenewPreference`: the product the next renewal will be (a downgrade waits here).
    public var autoRenewProductID: String
    public var willAutoRenew: Bool
    /// The next renewal's period and price, captured at purchase so renewals need no catalog.
    public var autoRenewPeriod: SubscriptionPeriod
    public var autoRenewPrice: Decimal
    public var currency: String
    public var storefrontCountryCode: String
    /// Pay-as-you-go offer periods still to bill at `introductoryPrice`: an introductory
    /// offer's, or the offer `offerType` names.
    public var introductoryPeriodsRemaining: Int
    public var introductoryPrice: Decimal?
    public var introductoryPeriod: SubscriptionPeriod?
    /// Where the chain is in its life: one phase, so a chain is never both in billing retry
    /// and expired, and each move between phases is made in one place.
    public var phase: Phase = .active
    public var expirationReason: ExpirationReason?
    /// The customer turned auto-renew off in the Billing Grace Period, which ended the
    /// subscription at once: Apple, "responseBody.Pending_renewal_info", the App Store pauses
    /// billing retry and removes the transaction from `pending_renewal_info`. Cleared by the
    /// next renewal.
    public var cancelledInGracePeriod = false
    /// A price increase the subscriber was told of, until the renewal it applies to.
    public var priceIncrease: PriceIncrease? = nil
    /// The renewal date extensions granted in the last 365 days (Extend a Subscription Renewal
    /// Date), oldest first: at most two count in any 365 days, and a request identifier asked
    /// again gets its first answer. Empty in states written before they were kept.
    public var extensions: [RenewalExtension] = []
    /// `recentSubscriptionStartDate`: when the run of paid service the chain is in began. Nil
    /// in states written before it was kept, where the chain's original purchase date stands in.
    public var recentSubscriptionStartDate: Date? = nil

    /// What the next full-price renewal charges: an agreed increase's price, else the
    /// auto-renew product's as captured.
    public var nextRenewalPrice: Decimal {
        if let increase = priceIncrease, increase.status == .agreed { return increase.newPrice }
        return autoRenewPrice
    }

    /// The offer the remaining pay-as-you-go periods belong to; nil for an introductory offer.
    public var offerType: Transaction.OfferType? = nil
    public var offerID: String? = nil
    /// An offer redeemed by a subscriber (a promotional offer, an offer code) that starts at
    /// the next renewal (`RenewalInfo.offer`).
    public var pendingOffer: PendingOffer? = nil

    /// The next renewal becomes `product` (a downgrade, or an offer on another plan of the
    /// group) at its price and period; what belonged to the old product — a price increase,
    /// a monthly plan's commitment — goes with it.
    mutating func renew(as product: Product, period: SubscriptionPeriod) {
        autoRenewProductID = product.id
        autoRenewPeriod = period
        autoRenewPrice = product.price
        priceIncrease = nil
        commitment = nil
    }

    /// A monthly billing plan's commitment: the chain bills every month, and the customer
    /// owes the payments to `endDate` even with auto-renew off; then a new commitment of
    /// `period` starts, or, with auto-renew off, the subscription ends.
    public var commitment: Commitment? = nil

    public struct Commitment: Sendable, Equatable {
        public var period: SubscriptionPeriod
        public var endDate: Date
        /// Monthly payments made in this commitment, of `payments` (12 for a year).
        public var paid: Int = 1
        /// What a whole commitment costs: the plan's commitment price. Nil in states written
        /// before it was kept, where the renewal price times the payments stands in.
        public var price: Decimal? = nil

        /// The monthly payments a commitment of `period` holds.
        public var payments: Int {
            switch period.unit {
            case .year: 12 * period.value
            case .month: period.value
            case .week, .day: 1
            }
        }

        /// The payment just made, as the transaction of that payment records it.
        /// - Parameter monthlyPrice: what a payment costs, for commitments kept without a price.
        func paymentInfo(monthlyPrice: Decimal) -> Transaction.CommitmentInfo {
            Transaction.CommitmentInfo(
                billingPeriodNumber: paid, totalBillingPeriods: payments, expirationDate: endDate,
                price: price ?? monthlyPrice * Decimal(payments))
        }
    }

    /// A chain's phase: how the App Store treats it between renewals. Apple, "Reducing
    /// involuntary subscriber churn" and `Product.SubscriptionInfo.RenewalState`: a renewal that
    /// fails with a billing issue enters billing retry, in a grace period first when the app
    /// offers one (access continues until it ends); retry ends with a renewal (billing
    /// recovery) or, when it gives up, with the subscription expired.
    public enum Phase: Sendable, Equatable {
        /// A paid period runs, or has just run out and the next step (a renewal, billing
        /// retry, or the end) is yet to be taken; auto-renew may be on or off.
        case active
        /// A renewal failed; access continues to `expires`, billing retry to `retryEnds`.
        case inGracePeriod(expires: Date, retryEnds: Date?)
        /// A renewal failed and access has ended; the App Store retries until `ends`.
        case inBillingRetry(ends: Date?)
        /// The chain ended and `EXPIRED` was sent: nothing happens to it until it is bought
        /// again (or auto-renew is turned back on).
        case expired
        /// The chain's current period was revoked (a refund, Family Sharing stopped) and
        /// notified: it does not renew or expire again.
        case revoked

        /// In billing retry, within a grace period or past it: `RenewalInfo.isInBillingRetry`.
        public var isInBillingRetry: Bool {
            switch self {
            case .inGracePeriod, .inBillingRetry: true
            case .active, .expired, .revoked: false
            }
        }

        /// Whether the chain's end was notified, so it is never notified twice.
        public var hasEnded: Bool { self == .expired || self == .revoked }
    }

    /// `RenewalInfo.isInBillingRetry`: true in the grace period and in billing retry.
    public var isInBillingRetry: Bool { phase.isInBillingRetry }

    /// `gracePeriodExpirationDate`: while in the grace period.
    public var gracePeriodExpirationDate: Date? {
        if case .inGracePeriod(let expires, _) = phase { return expires }
        return nil
    }

    /// When billing retry gives up and the subscription expires.
    public var billingRetryEndDate: Date? {
        switch phase {
        case .inGracePeriod(_, let ends), .inBillingRetry(let ends): ends
        case .active, .expired, .revoked: nil
        }
    }

    /// Whether the commitment still owes a payment.
    var isCommitted: Bool { commitment.map { $0.paid < $0.payments } ?? false }

    /// An offer waiting for the next renewal.
    public struct PendingOffer: Sendable, Equatable {
        public var type: Transaction.OfferType
        public var id: String?
        public var paymentMode: SubscriptionOffer.PaymentMode
        public var period: SubscriptionPeriod
        public var periodCount: Int
        public var price: Decimal

        public init(
            type: Transaction.OfferType, id: String?, paymentMode: SubscriptionOffer.PaymentMode,
            period: SubscriptionPeriod, periodCount: Int, price: Decimal
        ) {
            self.type = type
            self.id = id
            self.paymentMode = paymentMode
            self.period = period
            self.periodCount = periodCount
            self.price = price
        }
    }
}

extension RenewalInfo {
    /// Where the run of paid service of a chain (re)started at `date` began. Apple,
    /// "recentSubscriptionStartDate": "the earliest start date of an auto-renewable
    /// subscription in a series of subscription purchases that ignores all lapses of paid
    /// service shorter than 60 days". A lapse of 60 days or more starts a new run; a shorter one
    /// — or none, an upgrade or crossgrade — continues the run `previous` was in.
    /// - Parameters:
    ///   - previous: the chain's renewal info before the purchase; nil for a first one.
    ///   - latest: the chain's newest transaction before the purchase; its paid service ended
    ///     at its expiration, or at its revocation when that came first.
    ///   - lapse: 60 days as the session's time rate counts them (`TimeRate.subscriptionLapse`).
    static func recentSubscriptionStart(
        previous: RenewalInfo?, latest: Transaction?, at date: Date, lapse: TimeInterval
    ) -> Date {
        guard let latest, let paidUntil = latest.expirationDate else { return date }
        let end = min(paidUntil, latest.revocationDate ?? paidUntil)
        if date.timeIntervalSince(end) >= lapse { return date }
        return previous?.recentSubscriptionStartDate ?? latest.originalPurchaseDate
    }
}

/// One renewal date extension a subscription chain was granted.
public struct RenewalExtension: Sendable, Equatable {
    /// The developer's `requestIdentifier` (the mass extension's, for one made by it).
    public var requestIdentifier: String
    /// When it was granted.
    public var date: Date
    /// The period it extended (`webOrderLineItemId`) and that period's new end.
    public var webOrderLineItemID: String
    public var effectiveDate: Date

    public init(requestIdentifier: String, date: Date, webOrderLineItemID: String, effectiveDate: Date) {
        self.requestIdentifier = requestIdentifier
        self.date = date
        self.webOrderLineItemID = webOrderLineItemID
        self.effectiveDate = effectiveDate
    }
}
