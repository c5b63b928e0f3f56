import Foundation
import IAPSimJSON

/// The parts of an Xcode StoreKit configuration file (`.storekit`, format versions 1.0–5.0) that
/// iapsim uses, read as Xcode writes them. Keys it does not use are ignored, so files from
/// newer Xcode releases still load; a key it uses with the wrong type is an error that names
/// its place (`products[1].displayPrice: expected a string, found a number`).
struct StoreKitConfigurationFile {
    struct Localization {
        var locale: String
        var displayName: String?
        var description: String?
    }

    struct Offer {
        var offerID: String?
        var referenceName: String?
        var paymentMode: String
        var subscriptionPeriod: String
        var numberOfPeriods: Int?
        var displayPrice: String?
        /// Offer codes: who may redeem (`new`, `existing`, `expired`), and `isStackable`.
        var eligibility: [String]?
        var isStackable: Bool?
        /// Win-back offers: Xcode's eligibility switch for local testing.
        var isEligible: Bool?
        /// Format 5: the billing plan an offer belongs to (`BILLED_UPFRONT`, `MONTHLY`).
        var billingPlanType: String?
    }

    /// Format 5's `billingPlans`: how a subscription may be paid for.
    struct BillingPlan {
        var billingPlanType: String
        var displayPrice: String
        var commitmentDisplayPrice: String?
        var isEnabled: Bool?
    }

    struct ProductEntry {
        var productID: String
        var type: String
        var displayPrice: String
        var referenceName: String?
        var familyShareable: Bool?
        var localizations: [Localization]?
        // Auto-renewable subscriptions only.
        var subscriptionGroupID: String?
        var groupNumber: Int?
        var recurringSubscriptionPeriod: String?
        var introductoryOffer: Offer?
        /// Format 5 lists introductory offers per billing plan.
        var introductoryOffers: [Offer]?
        var billingPlans: [BillingPlan]?
        var adHocOffers: [Offer]?
        var codeOffers: [Offer]?
        var winbackOffers: [Offer]?
    }

    struct SubscriptionGroup {
        var id: String
        var name: String?
        var subscriptions: [ProductEntry]?
    }

    /// The `settings` block: the `SKTestSession` defaults Xcode stores with the file.
    struct Settings {
        var storefront: String?
        var locale: String?
        var askToBuyEnabled: Bool?
        var failTransactionsEnabled: Bool?
        var timeRate: Int?
        var billingGracePeriodEnabled: Bool?
        var renewalBillingIssuesEnabled: Bool?
        /// `_storeKitErrors`: `{name, enabled, current}`; `current` (the chosen error) is
        /// null in every file seen, so only a string or number there is used.
        var storeKitErrors: [(name: String?, enabled: Bool?, current: String?)]?
    }

    var identifier: String?
    var products: [ProductEntry]?
    var nonRenewingSubscriptions: [ProductEntry]?
    var subscriptionGroups: [SubscriptionGroup]?
    var settings: Settings?
    /// The key Xcode signs promotional offers with locally: its identifier, and the private
    /// key as base64 (PKCS #8) or PEM.
    var subscriptionOffersKeyPair: (id: String, privateKey: String)?

    /// Reads the document.
    /// - Throws: a description of the first misplaced value, with its place in the file.
    init(_ json: JSONValue) throws(Reader.Failure) {
        let root = try Reader(json, at: "")
        identifier = try root.optional("identifier")?.string()
        products = try root.optional("products")?.array { item throws(Reader.Failure) in try Self.product(item) }
        nonRenewingSubscriptions = try root.optional("nonRenewingSubscriptions")?.array { item throws(Reader.Failure) in
            try Self.product(item)
        }
        subscriptionGroups = try root.optional("subscriptionGroups")?.array { group throws(Reader.Failure) in
            SubscriptionGroup(
                id: try group.required("id").string(),
                name: try group.optional("name")?.string(),
                subscriptions: try group.optional("subscriptions")?.array { item throws(Reader.Failure) in
                    try Self.product(item)
                })
        }
        subscriptionOffersKeyPair = try root.optional("subscriptionOffersKeyPair").map { pair throws(Reader.Failure) in
            (try pair.required("id").string(), try pair.required("privateKey").string())
        }
        settings = try root.optional("settings").map { settings throws(Reader.Failure) in
            Settings(
                storefront: try settings.optional("_storefront")?.string(),
                locale: try settings.optional("_locale")?.string(),
                askToBuyEnabled: try settings.optional("_askToBuyEnabled")?.bool(),
                failTransactionsEnabled: try settings.optional("_failTransactionsEnabled")?.bool(),
                timeRate: try settings.optional("_timeRate")?.int(),
                billingGracePeriodEnabled: try settings.optional("_billingGracePeriodEnabled")?.bool(),
                renewalBillingIssuesEnabled: try settings.optional("_renewalBillingIssuesEnabled")?.bool(),
                storeKitErrors: try settings.optional("_storeKitErrors")?.array { entry throws(Reader.Failure) in
                    (
                        try entry.optional("name")?.string(), try entry.optional("enabled")?.bool(),
                        try entry.optional("current")?.text
                    )
                })
        }
    }

    private static func product(_ item: Reader) throws(Reader.Failure) -> ProductEntry {
        ProductEntry(
            productID: try item.required("productID").string(),
            type: try item.required("type").string(),
            displayPrice: try item.required("displayPrice").string(),
            referenceName: try item.optional("referenceName")?.string(),
            familyShareable: try item.optional("familyShareable")?.bool(),
            localizations: try item.optional("localizations")?.array { localization throws(Reader.Failure) in
                Localization(
                    locale: try localization.required("locale").string(),
                    displayName: try localization.optional("displayName")?.string(),
                    description: try localization.optional("description")?.string())
            },
            subscriptionGroupID: try item.optional("subscriptionGroupID")?.string(),
            groupNumber: try item.optional("groupNumber")?.int(),
            recurringSubscriptionPeriod: try item.optional("recurringSubscriptionPeriod")?.string(),
            introductoryOffer: try item.optional("introductoryOffer").map { offer throws(Reader.Failure) in
                try Self.offer(offer)
            },
            introductoryOffers: try item.optional("introductoryOffers")?.array { offer throws(Reader.Failure) in
                try Self.offer(offer)
            },
            billingPlans: try item.optional("billingPlans")?.array { plan throws(Reader.Failure) in
                BillingPlan(
                    billingPlanType: try plan.required("billingPlanType").string(),
                    displayPrice: try plan.required("displayPrice").string(),
                    commitmentDisplayPrice: try plan.optional("commitmentDisplayPrice")?.string(),
                    isEnabled: try plan.optional("isEnabled")?.bool())
            },
            adHocOffers: try item.optional("adHocOffers")?.array { offer throws(Reader.Failure) in try Self.offer(offer)
            },
            codeOffers: try item.optional("codeOffers")?.array { offer throws(Reader.Failure) in try Self.offer(offer)
            },
            winbackOffers: try item.optional("winbackOffers")?.array { offer throws(Reader.Failure) in
                try Self.offer(offer)
            })
    }

    private static func offer(_ offer: Reader) throws(Reader.Failure) -> Offer {
        Offer(
            offerID: try offer.optional("offerID")?.string(),
            referenceName: try offer.optional("referenceName")?.string(),
            paymentMode: try offer.required("paymentMode").string(),
            subscriptionPeriod: try offer.required("subscriptionPeriod").string(),
            numberOfPeriods: try offer.optional("numberOfPeriods")?.int(),
            displayPrice: try offer.optional("displayPrice")?.string(),
            eligibility: try offer.optional("eligibility")?.array { item throws(Reader.Failure) in try item.string() },
            isStackable: try offer.optional("isStackable")?.bool(),
            isEligible: try offer.optional("isEligible")?.bool(),
            billingPlanType: try offer.optional("billingPlanType")?.string())
    }
}
