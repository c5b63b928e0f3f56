import Foundation
import IAPSimJSON

/// What StoreKit 2's `Transaction` and `Product.SubscriptionInfo.RenewalInfo` carry besides
/// the account's record: where the data comes from, when it was signed, and the app
/// transaction. None of it is stored: it is the same for every transaction read at one moment.
public struct StoreKitContext: Sendable, Equatable {
    /// `AppStore.Environment`: the session's `environment` setting, the one its signed data
    /// names too, so a transaction says one environment in `--json`, in its JWS and to
    /// StoreKit alike.
    public let environment: AppStoreEnvironment

    /// `signedDate`: the moment of the read, on the simulated clock.
    public let signedDate: Date
    /// `appTransactionID`: one per account and app.
    public let appTransactionID: String

    /// The two as JSON, spelled once for every transaction read at this moment.
    let signedDateJSON: JSONValue
    let appTransactionIDJSON: JSONValue

    public init(signedDate: Date, appTransactionID: String, environment: AppStoreEnvironment = .sandbox) {
        self.environment = environment
        self.signedDate = signedDate
        self.appTransactionID = appTransactionID
        self.signedDateJSON = .date(signedDate)
        self.appTransactionIDJSON = .string(appTransactionID)
    }
}

extension SubscriptionOffer.PaymentMode {
    /// `Product.SubscriptionOffer.PaymentMode` as StoreKit 2 names it (`freeTrial`, not the
    /// configuration file's `free`).
    public var storeKitName: String {
        switch self {
        case .freeTrial: "freeTrial"
        case .payAsYouGo: "payAsYouGo"
        case .payUpFront: "payUpFront"
        }
    }
}

extension Transaction {
    /// `Transaction.Offer`: the offer a transaction used, or the one a renewal will use.
    public struct Offer: Sendable, Equatable {
        public var type: OfferType
        /// Nil for an introductory offer, which has no identifier.
        public var id: String?
        public var paymentMode: SubscriptionOffer.PaymentMode?
        public var period: SubscriptionPeriod?

        public var json: JSONValue {
            .object([
                ("type", .string(type.rawValue)), ("id", .optional(id)),
                ("paymentMode", .optional(paymentMode?.storeKitName)), ("period", .optional(period?.iso8601)),
            ])
        }
    }

    /// `Transaction.offer`; nil when the purchase used none.
    public var offer: Offer? {
        offerType.map { Offer(type: $0, id: offerID, paymentMode: offerPaymentMode, period: offerPeriod) }
    }
}

extension RenewalInfo {
    /// What a chain's renewal info says in a given state, worked out once for StoreKit's
    /// `RenewalInfo` and the signed JWSRenewalInfo alike.
    public struct Facts: Sendable, Equatable {
        /// `willAutoRenew`: on, and the chain neither revoked nor expired.
        public var willAutoRenew: Bool
        /// `expirationReason` (`expirationIntent`): only once the period has ended without a
        /// renewal — expired, in billing retry, or in the Billing Grace Period (Apple,
        /// "expirationReason": nil while the subscription is active and hasn't expired;
        /// "isInBillingRetry": in the grace period `isInBillingRetry` is true and
        /// `expirationReason` is `billingError`, with the grace period's end set).
        public var expirationReason: ExpirationReason?
        /// `gracePeriodExpirationDate`: only while in billing retry.
        public var gracePeriodExpirationDate: Date?
        /// `renewalDate`: the expiration date of the chain's most recent purchase or renewal,
        /// present for every auto-renewable subscription, expired and auto-renew off included,
        /// and possibly past (Apple, "renewalDate").
        public var renewalDate: Date?
        /// `renewalPrice`: what the next renewal costs, an offer's price while one lasts.
        public var renewalPrice: Decimal
        /// `priceIncreaseStatus`: only for a chain that will renew.
        public var priceIncreaseStatus: PriceIncreaseStatus
        /// `offer`: the offer the next renewal uses.
        public var offer: Transaction.Offer?
        /// `recentSubscriptionStartDate`: where the run of paid service the chain is in began,
        /// lapses shorter than 60 days ignored (`RenewalInfo.recentSubscriptionStartDate`).
        public var recentSubscriptionStartDate: Date
    }

    /// The facts of this chain, whose newest transaction is `latest`, in `state`.
    public func facts(latest: Transaction, state: AccountStatus.SubscriptionStatus.State) -> Facts {
        let autoRenews = willAutoRenew && state != .revoked && state != .expired
        let hasExpired = state == .expired || state == .inBillingRetryPeriod || state == .inGracePeriod
        let next = SubscriptionEngine.nextPeriod(self)
        return Facts(
            willAutoRenew: autoRenews, expirationReason: hasExpired ? expirationReason ?? .unknown : nil,
            gracePeriodExpirationDate: isInBillingRetry ? gracePeriodExpirationDate : nil,
            renewalDate: latest.expirationDate, renewalPrice: next.price,
            priceIncreaseStatus: priceIncreaseStatus(willAutoRenew: autoRenews),
            offer: pendingOffer.map { pending in
                // A redeemed offer waiting for the next renewal (free and pay-up-front ones
                // cover all their periods at once).
                Transaction.Offer(
                    type: pending.type, id: pending.id, paymentMode: pending.paymentMode,
                    period: pending.paymentMode == .payAsYouGo
                        ? pending.period
                        : pending.period.times(pending.periodCount))
            }
                ?? next.offer.map {
                    Transaction.Offer(type: $0, id: offerID, paymentMode: .payAsYouGo, period: next.period)
                },
            recentSubscriptionStartDate: recentSubscriptionStartDate ?? latest.originalPurchaseDate)
    }

    /// `Product.SubscriptionInfo.RenewalInfo` as StoreKit 2 names its fields.
    /// - Parameter eligibleWinBackOfferIDs: the win-back offers the customer may redeem now
    ///   (`StoreSession.eligibleWinBackOfferIDs`), which take the catalog to know.
    public func storeKitJSON(
        latest: Transaction, state: AccountStatus.SubscriptionStatus.State, context: StoreKitContext,
        eligibleWinBackOfferIDs: [String] = []
    ) -> JSONValue {
        let facts = facts(latest: latest, state: state)
        return .object([
            ("originalTransactionID", .int(originalID)),
            ("currentProductID", .string(currentProductID)),
            ("willAutoRenew", .bool(facts.willAutoRenew)),
            ("autoRenewPreference", .string(autoRenewProductID)),
            ("expirationReason", .optional(facts.expirationReason?.rawValue)),
            ("gracePeriodExpirationDate", .date(facts.gracePeriodExpirationDate)),
            ("isInBillingRetry", .bool(isInBillingRetry)),
            ("priceIncreaseStatus", .string(facts.priceIncreaseStatus.rawValue)),
            ("renewalDate", .date(facts.renewalDate)),
            ("renewalPrice", .string(facts.renewalPrice.plainString)),
            ("currency", .string(currency)),
            ("offer", facts.offer?.json ?? .null),
            ("eligibleWinBackOfferIDs", .array(eligibleWinBackOfferIDs.map(JSONValue.string))),
            ("recentSubscriptionStartDate", .date(facts.recentSubscriptionStartDate)),
            ("environment", .string(context.environment.rawValue)),
            ("signedDate", .date(context.signedDate)),
            ("appTransactionID", .string(context.appTransactionID)),
        ])
    }
}

extension AccountStatus.SubscriptionStatus {
    /// One element of `Product.SubscriptionInfo.status`: `{state, transaction, renewalInfo}`.
    public func storeKitJSON(_ context: StoreKitContext, eligibleWinBackOfferIDs: [String] = []) -> JSONValue {
        .object([
            ("state", .string(state.rawValue)),
            ("transaction", transaction.storeKitJSON(context)),
            (
                "renewalInfo",
                renewalInfo.storeKitJSON(
                    latest: transaction, state: state, context: context,
                    eligibleWinBackOfferIDs: eligibleWinBackOfferIDs)
            ),
        ])
    }
}

extension StoreSession {
    /// The context of a read now, for transactions an operation returned: the simulated now
    /// and the app transaction. Read without the lock, as a look does.
    public func storeKitContext() throws -> StoreKitContext {
        try peek { state, moment in
            StoreKitContext(
                signedDate: moment.now,
                appTransactionID: state.account.appTransactionID
                    ?? Self.appTransactionID(firstUse: moment.now, customer: state.account.customerNumber),
                environment: moment.settings.environment)
        }
    }
}
