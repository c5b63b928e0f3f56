import Foundation

/// The parts of an Xcode StoreKit configuration file (`.storekit`, format versions 1.0–5.0) that
/// iapsim uses, decoded as Xcode writes them. Keys it does not use are ignored, so files from
/// newer Xcode releases still load.
struct StoreKitConfigurationFile: Decodable {
    struct Version: Decodable {
        var major: Int
        var minor: Int?
    }

    struct Localization: Decodable {
        var locale: String
        var displayName: String?
        var description: String?
    }

    struct Offer: Decodable {
        var paymentMode: String
        var subscriptionPeriod: String
        var numberOfPeriods: Int?
        var displayPrice: String?
    }

    struct ProductEntry: Decodable {
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
    }

    struct SubscriptionGroup: Decodable {
        var id: String
        var name: String?
        var subscriptions: [ProductEntry]?
    }

    /// The `settings` block: the `SKTestSession` defaults Xcode stores with the file.
    struct Settings: Decodable {
        var storefront: String?
        var locale: String?
        var askToBuyEnabled: Bool?
        var failTransactionsEnabled: Bool?
        var timeRate: Int?
        var billingGracePeriodEnabled: Bool?
        var renewalBillingIssuesEnabled: Bool?

        enum CodingKeys: String, CodingKey {
            case storefront = "_storefront"
            case locale = "_locale"
            case askToBuyEnabled = "_askToBuyEnabled"
            case failTransactionsEnabled = "_failTransactionsEnabled"
            case timeRate = "_timeRate"
            case billingGracePeriodEnabled = "_billingGracePeriodEnabled"
            case renewalBillingIssuesEnabled = "_renewalBillingIssuesEnabled"
        }
    }

    var identifier: String?
    var version: Version?
    var products: [ProductEntry]?
    var nonRenewingSubscriptions: [ProductEntry]?
    var subscriptionGroups: [SubscriptionGroup]?
    var settings: Settings?
}
