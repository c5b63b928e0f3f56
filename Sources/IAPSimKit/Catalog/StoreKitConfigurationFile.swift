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
        var offerID: String?
        var referenceName: String?
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
        var adHocOffers: [Offer]?
        var codeOffers: [Offer]?
        var winbackOffers: [Offer]?
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
        var storeKitErrors: [SimulatedErrorEntry]?

        enum CodingKeys: String, CodingKey {
            case storefront = "_storefront"
            case locale = "_locale"
            case askToBuyEnabled = "_askToBuyEnabled"
            case failTransactionsEnabled = "_failTransactionsEnabled"
            case timeRate = "_timeRate"
            case billingGracePeriodEnabled = "_billingGracePeriodEnabled"
            case renewalBillingIssuesEnabled = "_renewalBillingIssuesEnabled"
            case storeKitErrors = "_storeKitErrors"
        }
    }

    /// One `_storeKitErrors` entry. `current` (the chosen error) is null in every file seen;
    /// any shape is accepted and only a string or number is used.
    struct SimulatedErrorEntry: Decodable {
        var name: String?
        var enabled: Bool?
        var current: LenientText?
    }

    struct LenientText: Decodable {
        var text: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let string = try? container.decode(String.self) {
                text = string
            } else if let number = try? container.decode(Int.self) {
                text = String(number)
            } else {
                text = nil
            }
        }
    }

    var identifier: String?
    var version: Version?
    var products: [ProductEntry]?
    var nonRenewingSubscriptions: [ProductEntry]?
    var subscriptionGroups: [SubscriptionGroup]?
    var settings: Settings?
}
