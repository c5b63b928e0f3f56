import Foundation

/// One product the store sells, as `Product` / `SKProduct` describe it.
public struct Product: Sendable, Equatable {
    /// `Product.id` / `SKProduct.productIdentifier`.
    public var id: String
    public var type: ProductType
    /// The name the developer gave it in Xcode; never shown to a buyer.
    public var referenceName: String
    /// The price in the catalog's storefront currency, parsed exactly from `displayPrice`.
    public var price: Decimal
    public var familyShareable: Bool
    public var localizations: [ProductLocalization]
    /// Present for auto-renewable subscriptions.
    public var subscription: SubscriptionInfo?

    public init(
        id: String, type: ProductType, referenceName: String, price: Decimal,
        familyShareable: Bool = false, localizations: [ProductLocalization] = [],
        subscription: SubscriptionInfo? = nil
    ) {
        self.id = id
        self.type = type
        self.referenceName = referenceName
        self.price = price
        self.familyShareable = familyShareable
        self.localizations = localizations
        self.subscription = subscription
    }

    /// The localization for `localeIdentifier`: the best of the same language (the same
    /// script first, given or inferred from the region, so `zh_TW` takes `zh_Hant` and
    /// `zh_CN` `zh_Hans`; see `LocaleKey`), then the same for `fallback` (the catalog's
    /// default), then the first one.
    public func localization(for localeIdentifier: String, fallback: String? = nil) -> ProductLocalization? {
        guard localizations.count > 1 else { return localizations.first }
        let keys = localizations.map { LocaleKey($0.locale) }
        if let index = LocaleKey(localeIdentifier).bestMatch(among: keys) { return localizations[index] }
        if let fallback, let index = LocaleKey(fallback).bestMatch(among: keys) { return localizations[index] }
        return localizations.first
    }
}

/// A product's texts in one locale.
public struct ProductLocalization: Sendable, Equatable {
    public var locale: String
    public var displayName: String
    public var description: String

    public init(locale: String, displayName: String, description: String) {
        self.locale = locale
        self.displayName = displayName
        self.description = description
    }
}

/// What `Product.SubscriptionInfo` tells about an auto-renewable subscription.
public struct SubscriptionInfo: Sendable, Equatable {
    /// `subscriptionGroupID`.
    public var groupID: String
    public var groupName: String
    /// The level within the group: 1 is the highest service level, as in App Store Connect.
    public var groupLevel: Int
    public var period: SubscriptionPeriod
    public var introductoryOffer: SubscriptionOffer?
    /// `promotionalOffers` (Xcode's `adHocOffers`).
    public var promotionalOffers: [SubscriptionOffer]
    /// Offer codes (Xcode's `codeOffers`).
    public var offerCodes: [SubscriptionOffer]
    /// `winBackOffers` (Xcode's `winbackOffers`).
    public var winBackOffers: [SubscriptionOffer]
    /// Format 5's billing plans: paid up front, or monthly within a yearly commitment.
    public var billingPlans: [BillingPlan] = []

    /// The enabled plan that bills monthly within a commitment of `period`, if the file has one.
    public var monthlyPlan: BillingPlan? { billingPlans.first { $0.isMonthly && $0.isEnabled } }

    public init(
        groupID: String, groupName: String, groupLevel: Int, period: SubscriptionPeriod,
        introductoryOffer: SubscriptionOffer? = nil, promotionalOffers: [SubscriptionOffer] = [],
        offerCodes: [SubscriptionOffer] = [], winBackOffers: [SubscriptionOffer] = []
    ) {
        self.groupID = groupID
        self.groupName = groupName
        self.groupLevel = groupLevel
        self.period = period
        self.introductoryOffer = introductoryOffer
        self.promotionalOffers = promotionalOffers
        self.offerCodes = offerCodes
        self.winBackOffers = winBackOffers
    }
}

/// `Product.SubscriptionOffer`: an introductory, promotional, offer-code or win-back offer.
public struct SubscriptionOffer: Sendable, Equatable {
    /// `Product.SubscriptionOffer.PaymentMode` raw values.
    public enum PaymentMode: String, Codable, Sendable, CaseIterable {
        case freeTrial = "free"
        case payAsYouGo
        case payUpFront

        /// Apple's spelling on the wire (`offerDiscountType` in the JWS and renewal info;
        /// StoreKit's `Transaction.Offer.PaymentMode.rawValue`).
        public var appleName: String {
            switch self {
            case .freeTrial: "FREE_TRIAL"
            case .payAsYouGo: "PAY_AS_YOU_GO"
            case .payUpFront: "PAY_UP_FRONT"
            }
        }
    }

    /// Who may redeem an offer code (App Store Connect's customer eligibility).
    public enum CodeEligibility: String, Sendable, CaseIterable {
        /// Never subscribed in the group.
        case new
        /// Subscribed now.
        case existing
        /// Subscribed before; lapsed now.
        case expired
    }

    /// `Product.SubscriptionOffer.id`: nil for an introductory offer; an offer code's
    /// reference name when the file gives it no identifier (what its transactions carry).
    public var id: String?
    public var paymentMode: PaymentMode
    public var period: SubscriptionPeriod
    public var periodCount: Int
    /// The offer's price; zero for a free trial.
    public var price: Decimal
    /// Offer codes: who may redeem it; empty means anyone.
    public var eligibility: Set<CodeEligibility> = []
    /// Offer codes: whether it may be redeemed on top of an introductory offer.
    public var isStackable: Bool = false
    /// Win-back offers: Xcode's switch that makes the customer eligible in local testing.
    public var isEligible: Bool = true

    public init(
        id: String? = nil, paymentMode: PaymentMode, period: SubscriptionPeriod, periodCount: Int, price: Decimal
    ) {
        self.id = id
        self.paymentMode = paymentMode
        self.period = period
        self.periodCount = periodCount
        self.price = price
    }
}

/// A billing plan of a format-5 `.storekit` subscription (`billingPlans`): how it is paid for.
public struct BillingPlan: Sendable, Equatable {
    /// `BILLED_UPFRONT` (the whole period at once) or `MONTHLY` (monthly payments within the
    /// subscription's period, a commitment).
    public var type: String
    /// What each payment costs.
    public var price: Decimal
    /// What the whole commitment costs.
    public var commitmentPrice: Decimal
    public var isEnabled: Bool

    public init(type: String, price: Decimal, commitmentPrice: Decimal, isEnabled: Bool) {
        self.type = type
        self.price = price
        self.commitmentPrice = commitmentPrice
        self.isEnabled = isEnabled
    }

    /// The plan iapsim knows it as; nil for a `billingPlanType` it does not know.
    public var planType: BillingPlanType? { BillingPlanType(rawValue: type) }

    /// Monthly payments within a longer commitment.
    public var isMonthly: Bool { planType == .monthly }
}
