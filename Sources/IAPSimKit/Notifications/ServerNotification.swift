import Foundation

/// One App Store Server Notification V2, as the App Store records it when the event happens:
/// its type and subtype, its UUID, the simulated time of the event (its `signedDate`), and the
/// transaction and renewal info it concerns as they were then. It is signed only when it is
/// delivered, so recording one costs a purchase nothing but a line in the outbox.
public struct ServerNotification: Sendable, Equatable {
    /// `notificationType`.
    public enum Kind: String, Sendable, CaseIterable {
        case subscribed = "SUBSCRIBED"
        case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
        case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
        case didRenew = "DID_RENEW"
        case didFailToRenew = "DID_FAIL_TO_RENEW"
        case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
        case expired = "EXPIRED"
        case refund = "REFUND"
        case refundDeclined = "REFUND_DECLINED"
        case refundReversed = "REFUND_REVERSED"
        case consumptionRequest = "CONSUMPTION_REQUEST"
        case priceIncrease = "PRICE_INCREASE"
        /// The customer redeemed a promotional offer, an offer code or a win-back offer
        /// (Apple, "notificationType"): with `INITIAL_BUY`, `RESUBSCRIBE`, `UPGRADE` or
        /// `DOWNGRADE`, or no subtype for an offer on the active subscription.
        case offerRedeemed = "OFFER_REDEEMED"
        /// A family-shared purchase is no longer shared (Apple, "Supporting Family Sharing in
        /// your app").
        case revoke = "REVOKE"
        case oneTimeCharge = "ONE_TIME_CHARGE"
        case test = "TEST"
        case renewalExtended = "RENEWAL_EXTENDED"
        case renewalExtension = "RENEWAL_EXTENSION"
    }

    /// `subtype`.
    public enum Subtype: String, Sendable, CaseIterable {
        case initialBuy = "INITIAL_BUY"
        case resubscribe = "RESUBSCRIBE"
        case upgrade = "UPGRADE"
        case downgrade = "DOWNGRADE"
        case billingRecovery = "BILLING_RECOVERY"
        case gracePeriod = "GRACE_PERIOD"
        case voluntary = "VOLUNTARY"
        case billingRetry = "BILLING_RETRY"
        case autoRenewEnabled = "AUTO_RENEW_ENABLED"
        case autoRenewDisabled = "AUTO_RENEW_DISABLED"
        case summary = "SUMMARY"
        /// `RENEWAL_EXTENSION`: a mass extension could not extend this subscription.
        case failure = "FAILURE"
        /// `PRICE_INCREASE`: the customer has not responded to an increase that needs consent.
        case pending = "PENDING"
        /// `PRICE_INCREASE`: the customer agreed, or the increase needs no consent.
        case accepted = "ACCEPTED"
        /// `EXPIRED`: the customer did not consent to a price increase.
        case priceIncrease = "PRICE_INCREASE"
    }

    /// `data.status` for subscriptions: 1 active, 2 expired, 3 billing retry, 4 grace
    /// period, 5 revoked.
    public enum Status: Int, Sendable {
        case active = 1
        case expired, billingRetry, gracePeriod, revoked
    }

    /// `notificationUUID`: the same on every delivery attempt.
    public var uuid: String
    public var kind: Kind
    public var subtype: Subtype?
    /// When the event happened on the simulated clock: the notification's `signedDate`.
    public var date: Date
    /// The transaction it concerns, as it was at `date`.
    public var transaction: Transaction?
    /// The subscription's renewal info at `date`, for subscription events.
    public var renewal: RenewalInfo?
    public var status: Status?
    /// `data.consumptionRequestReason`, for `CONSUMPTION_REQUEST`: why the customer asked for
    /// the refund.
    public var consumptionRequestReason: RefundRequest.Reason? = nil
    /// The chain's newest transaction at `date`, when `transaction` is an earlier one (a refund
    /// of an earlier period): the renewal info is signed as of the chain, not of that period.
    public var latest: Transaction? = nil
    /// `RENEWAL_EXTENSION` / `SUMMARY`'s `summary`, which it carries instead of `data`.
    public var summary: MassExtensionSummary? = nil

    public init(
        uuid: String, kind: Kind, subtype: Subtype?, date: Date, transaction: Transaction?, renewal: RenewalInfo?,
        status: Status?
    ) {
        self.uuid = uuid
        self.kind = kind
        self.subtype = subtype
        self.date = date
        self.transaction = transaction
        self.renewal = renewal
        self.status = status
    }

    /// The chain's newest transaction at `date`: what its renewal info is worked out from.
    public var chainLatest: Transaction? { latest ?? transaction }

    /// `TYPE` or `TYPE/SUBTYPE`, as `iapsim trigger` and the listings name it.
    public var name: String { subtype.map { kind.rawValue + "/" + $0.rawValue } ?? kind.rawValue }
}

/// What a mass renewal extension did, as `RENEWAL_EXTENSION` / `SUMMARY` reports it (Apple,
/// "summary"): the request, the product, the storefronts it was limited to, and how many
/// subscriptions were extended and how many could not be. The app's identity and the
/// environment are added when it is signed.
public struct MassExtensionSummary: Sendable, Equatable {
    public var requestIdentifier: String
    public var productID: String
    /// The storefronts the request named; nil when it applied to all (Apple,
    /// "storefrontCountryCodes": the notification returns only those the request gave).
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int
    public var failedCount: Int

    public init(
        requestIdentifier: String, productID: String, storefrontCountryCodes: [String]?, succeededCount: Int,
        failedCount: Int
    ) {
        self.requestIdentifier = requestIdentifier
        self.productID = productID
        self.storefrontCountryCodes = storefrontCountryCodes
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}

extension ServerNotification.Status {
    /// The status of a chain in `state`.
    init(_ state: AccountStatus.SubscriptionStatus.State) {
        switch state {
        case .subscribed: self = .active
        case .expired: self = .expired
        case .inBillingRetryPeriod: self = .billingRetry
        case .inGracePeriod: self = .gracePeriod
        case .revoked: self = .revoked
        }
    }
}
