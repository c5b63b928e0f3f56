/// The four kinds of in-app purchase, named as StoreKit 2's `Product.ProductType` members.
public enum ProductType: String, Codable, Sendable, CaseIterable {
    case consumable
    case nonConsumable
    case autoRenewable
    case nonRenewable

    /// Apple's name on the wire: the JWS transaction's `type`, StoreKit 2's
    /// `Product.ProductType.localizedDescription`.
    public var appleName: String {
        switch self {
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonConsumable: "Non-Consumable"
        case .consumable: "Consumable"
        case .nonRenewable: "Non-Renewing Subscription"
        }
    }

    /// The `type` value Xcode writes in a `.storekit` file for this kind.
    public var storeKitConfigurationName: String {
        switch self {
        case .consumable: "Consumable"
        case .nonConsumable: "NonConsumable"
        case .autoRenewable: "RecurringSubscription"
        case .nonRenewable: "NonRenewingSubscription"
        }
    }

    /// The kind named by a `.storekit` file's `type` value, or nil for one Xcode does not write.
    public init?(storeKitConfigurationName name: String) {
        guard let match = Self.allCases.first(where: { $0.storeKitConfigurationName == name }) else {
            return nil
        }
        self = match
    }

    /// Whether `restoreCompletedTransactions` / `AppStore.sync()` re-deliver it. Apple: "restore
    /// previously completed purchases of non-consumable products and auto-renewable
    /// subscriptions"; consumables and non-renewing subscriptions are the app's own business.
    public var isRestorable: Bool {
        self == .nonConsumable || self == .autoRenewable
    }
}
