import Foundation

/// A snapshot of what is owned, for `iapsim status`: the app's record, and from the account's
/// history each subscription's state, like RevenueCat's `CustomerInfo`.
public struct AccountStatus: Sendable, Equatable {
    public var purchasedProductIdentifiers: [String]
    public var consumables: [String: Int]
    /// `Transaction.currentEntitlements`: the latest transaction of each product that grants access now.
    public var entitlements: [Transaction]
    /// The latest transaction of each auto-renewable subscription the account ever had.
    public var subscriptions: [SubscriptionStatus]
    public var transactionCount: Int

    public struct SubscriptionStatus: Sendable, Equatable {
        /// `Product.SubscriptionInfo.RenewalState` raw values.
        public enum State: String, Sendable {
            case subscribed, expired, revoked
        }

        public var productID: String
        public var subscriptionGroupID: String
        public var state: State
        public var expirationDate: Date?
        public var originalID: UInt64
    }

    public init(state: PurchaseState, at date: Date) {
        purchasedProductIdentifiers = state.app.purchasedProductIdentifiers
        consumables = state.app.consumables
        transactionCount = state.account.transactions.count
        var latest: [String: Transaction] = [:]
        var order: [String] = []
        for transaction in state.account.transactions where transaction.productType != .consumable {
            if latest[transaction.productID] == nil { order.append(transaction.productID) }
            latest[transaction.productID] = transaction
        }
        entitlements = order.compactMap { latest[$0] }.filter { $0.isEntitlement(at: date) }
        subscriptions = order.compactMap { latest[$0] }.filter { $0.productType == .autoRenewable }.map {
            let state: SubscriptionStatus.State =
                $0.revocationDate != nil ? .revoked : ($0.isEntitlement(at: date) ? .subscribed : .expired)
            return SubscriptionStatus(
                productID: $0.productID, subscriptionGroupID: $0.subscriptionGroupID ?? "", state: state,
                expirationDate: $0.expirationDate, originalID: $0.originalID)
        }
    }
}
