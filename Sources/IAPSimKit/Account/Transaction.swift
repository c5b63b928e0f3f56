import Foundation

/// One transaction in the account's history, with the fields of StoreKit 2's `Transaction`.
public struct Transaction: Sendable, Equatable, Identifiable {
    /// `Transaction.RevocationReason` raw values.
    public enum RevocationReason: String, Codable, Sendable, CaseIterable {
        case developerIssue, other
    }

    /// `Transaction.Reason`: a first purchase or an automatic renewal.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        case purchase, renewal

        /// Apple's spelling on the wire (`transactionReason` in the JWS; StoreKit's
        /// `Transaction.Reason.rawValue`).
        public var appleName: String {
            switch self {
            case .purchase: "PURCHASE"
            case .renewal: "RENEWAL"
            }
        }
    }

    /// `Transaction.OfferType` raw values.
    public enum OfferType: String, Codable, Sendable, CaseIterable {
        case introductory, promotional, code, winBack

        /// Apple's number on the wire (`offerType` in the JWS and renewal info; StoreKit's
        /// `Transaction.OfferType.rawValue`): 1 introductory, 2 promotional, 3 offer code,
        /// 4 win-back.
        public var appleNumber: Int {
            switch self {
            case .introductory: 1
            case .promotional: 2
            case .code: 3
            case .winBack: 4
            }
        }
    }

    /// `Transaction.RevocationType` (StoreKit, iOS 26.4; `revocationType` in the JWS since App
    /// Store Server API 1.19): how the transaction was revoked. Raw values are Apple's wire
    /// spellings, which StoreKit's `rawValue` carries too.
    public enum RevocationType: String, Codable, Sendable, CaseIterable {
        /// Refunded in full.
        case fullRefund = "REFUND_FULL"
        /// Refunded in part, `revocationPercentage` of it.
        case proratedRefund = "REFUND_PRORATED"
        /// Revoked because the family organiser stopped sharing it.
        case familyRevocation = "FAMILY_REVOKE"

        /// StoreKit's name of the case (`fullRefund`), as `--json` spells it.
        public var storeKitName: String {
            switch self {
            case .fullRefund: "fullRefund"
            case .proratedRefund: "proratedRefund"
            case .familyRevocation: "familyRevocation"
            }
        }
    }

    /// `Transaction.OwnershipType`: bought by this account, or shared with it by the family
    /// organiser (Apple, "Supporting Family Sharing in your app").
    public enum OwnershipType: String, Codable, Sendable, CaseIterable {
        case purchased, familyShared

        /// Apple's spelling on the wire (`inAppOwnershipType` in the JWS, in `verifyReceipt`,
        /// in Get Transaction History's query, and StoreKit's `OwnershipType.rawValue`).
        public var appleName: String {
            switch self {
            case .purchased: "PURCHASED"
            case .familyShared: "FAMILY_SHARED"
            }
        }

        /// The value Apple spells `name`, nil for another.
        public init?(appleName name: String) {
            guard let known = Self.allCases.first(where: { $0.appleName == name }) else { return nil }
            self = known
        }
    }

    /// `Transaction.id`: unique, increasing.
    public var id: UInt64
    /// `Transaction.originalID`: the first transaction of a subscription's chain; `id` otherwise.
    public var originalID: UInt64
    public var productID: String
    public var productType: ProductType
    public var purchaseDate: Date
    public var originalPurchaseDate: Date
    public var purchasedQuantity: Int
    /// Auto-renewable subscriptions only: when this period ends.
    public var expirationDate: Date?
    public var revocationDate: Date?
    public var revocationReason: RevocationReason?
    /// `Transaction.revocationPercentage` of a prorated refund (`refund --prorated`): the
    /// percentage given back, more than 0 and less than 100. Nil for a full refund (100%), for
    /// a revocation that is no refund, and for a transaction not refunded.
    public var revocationPercentage: Decimal? = nil
    /// `Transaction.revocationType`, as recorded when the transaction was revoked; nil when it
    /// is not revoked, and on records written before it was kept (`revocationKind` then tells
    /// it from the other revocation fields).
    public var revocationType: RevocationType? = nil
    public var subscriptionGroupID: String?
    /// True when the buyer moved to a higher level of the same group and this one stopped.
    public var isUpgraded: Bool
    public var reason: Reason
    /// Set when the purchase used an offer, as `Transaction.offer`.
    public var offerType: OfferType?
    public var offerPaymentMode: SubscriptionOffer.PaymentMode?
    /// The offer's identifier: a promotional or win-back offer's id, an offer code's
    /// reference name (`Transaction.Offer.id`, the JWS's `offerIdentifier`); nil for an
    /// introductory offer.
    public var offerID: String? = nil
    /// `.monthly` for a payment of a subscription billed monthly within a commitment (a
    /// format-5 billing plan); nil when the period is paid at once.
    public var billingPlanType: BillingPlanType? = nil
    /// `Transaction.CommitmentInfo`: for a payment under a monthly plan, which payment of its
    /// commitment it is and what the commitment is. Nil otherwise, and for payments recorded
    /// before it was kept.
    public var commitmentInfo: CommitmentInfo? = nil
    /// `Transaction.Offer.period`: how long the offer lasts in this transaction — the whole
    /// free trial or paid-up-front span, one period of a pay-as-you-go offer.
    public var offerPeriod: SubscriptionPeriod? = nil
    /// What was charged: `Transaction.price`, in `currency`.
    public var price: Decimal
    /// ISO 4217, `Transaction.currency`.
    public var currency: String
    /// `Transaction.storefront.countryCode`.
    public var storefrontCountryCode: String
    /// `Transaction.appAccountToken`: the UUID the app or its server tied to the purchase.
    public var appAccountToken: UUID? = nil
    /// `Transaction.ownershipType`. A family-shared transaction charged this account nothing.
    public var ownershipType: OwnershipType = .purchased
    /// When the transaction was deleted from the account (`SKTestSession.deleteTransaction(identifier:)`,
    /// `iapsim transactions delete`). The journal is only appended to, so a deletion is the
    /// transaction's last version, carrying this date; nothing shows a deleted transaction.
    public var deletionDate: Date? = nil

    public init(
        id: UInt64, originalID: UInt64, productID: String, productType: ProductType,
        purchaseDate: Date, originalPurchaseDate: Date, purchasedQuantity: Int = 1,
        expirationDate: Date? = nil, revocationDate: Date? = nil, revocationReason: RevocationReason? = nil,
        subscriptionGroupID: String? = nil, isUpgraded: Bool = false, reason: Reason = .purchase,
        price: Decimal, currency: String, storefrontCountryCode: String
    ) {
        self.id = id
        self.originalID = originalID
        self.productID = productID
        self.productType = productType
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.purchasedQuantity = purchasedQuantity
        self.expirationDate = expirationDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.subscriptionGroupID = subscriptionGroupID
        self.isUpgraded = isUpgraded
        self.reason = reason
        self.offerType = nil
        self.offerPaymentMode = nil
        self.price = price
        self.currency = currency
        self.storefrontCountryCode = storefrontCountryCode
    }

    /// `Transaction.CommitmentInfo` (StoreKit) and `TransactionCommitmentInfo` (App Store
    /// Server API 1.21): a monthly payment within a commitment of the subscription's period.
    public struct CommitmentInfo: Sendable, Equatable {
        /// Which payment of the commitment this is, from 1.
        public var billingPeriodNumber: Int
        /// The payments the commitment holds (12 for a year).
        public var totalBillingPeriods: Int
        /// When the commitment ends (`commitmentExpiresDate`).
        public var expirationDate: Date
        /// What the whole commitment costs (`commitmentPrice`): the plan's commitment price.
        public var price: Decimal

        public init(billingPeriodNumber: Int, totalBillingPeriods: Int, expirationDate: Date, price: Decimal) {
            self.billingPeriodNumber = billingPeriodNumber
            self.totalBillingPeriods = totalBillingPeriods
            self.expirationDate = expirationDate
            self.price = price
        }
    }

    /// `Transaction.webOrderLineItemID`: one per subscription period, so one per auto-renewable
    /// transaction, derived from it so it is stable across reads; nil for other products.
    public var webOrderLineItemID: String? {
        productType == .autoRenewable ? String(1_000_000_000 + id) : nil
    }

    /// The revocation undone, as a reversed refund leaves it: no revocation field is left
    /// (Apple, "revocationPercentage": not there once the refund is reversed).
    public mutating func reinstate() {
        revocationDate = nil
        revocationReason = nil
        revocationPercentage = nil
        revocationType = nil
    }

    /// How this transaction was revoked: the recorded `revocationType`, else, for a record
    /// written before it was kept, what the other fields say (a revocation without a refund
    /// reason is the end of Family Sharing, a refund with a percentage is prorated); nil when
    /// it is not revoked.
    public var revocationKind: RevocationType? {
        guard revocationDate != nil else { return nil }
        if let revocationType { return revocationType }
        if ownershipType == .familyShared && revocationReason == nil { return .familyRevocation }
        return revocationPercentage == nil ? .fullRefund : .proratedRefund
    }

    /// Whether this transaction grants access at `date`, as `Transaction.currentEntitlements`
    /// decides: not revoked, not upgraded away, and for a subscription not yet expired.
    public func isEntitlement(at date: Date) -> Bool {
        guard deletionDate == nil, revocationDate == nil, !isUpgraded, productType != .consumable else { return false }
        if let expirationDate { return expirationDate > date }
        return true
    }
}
