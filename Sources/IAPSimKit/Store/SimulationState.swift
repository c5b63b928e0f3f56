import Foundation

/// The simulator's side of the state: what StoreKit Test keeps for a test session.
public struct SimulationState: Sendable, Equatable {
    /// `iapsim settings set` overrides, by key, each value in its key's canonical form; absent
    /// keys use the catalog's or iapsim's default.
    public var settings: [SettingKey: String]
    /// Nil until first used: then the real clock.
    public var clock: SimulatedClock?
    /// Purchases waiting for Ask to Buy approval or an interrupted purchase to be resolved.
    public var pending: [PendingPurchase]
    /// Transactions the app has not finished (`Transaction.unfinished`), by id, oldest first.
    public var unfinishedTransactionIDs: [UInt64]
    /// Each auto-renewable subscription's renewal state, by its chain's `originalID`.
    public var renewals: [RenewalInfo]

    public init() {
        settings = [:]
        clock = nil
        pending = []
        unfinishedTransactionIDs = []
        renewals = []
    }
}

/// A purchase that has not completed: `SKPaymentTransactionState.deferred` for Ask to Buy, or
/// an interrupted purchase waiting for the buyer to act outside the app. It holds the
/// transaction identifier it will have once it completes.
public struct PendingPurchase: Sendable, Equatable {
    public enum Reason: String, Codable, Sendable {
        case askToBuy, interrupted
    }

    public var id: UInt64
    public var productID: String
    public var productType: ProductType
    public var purchasedQuantity: Int
    public var reason: Reason
    public var requestDate: Date
}

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
    /// Pay-as-you-go introductory periods still to bill at `introductoryPrice`.
    public var introductoryPeriodsRemaining: Int
    public var introductoryPrice: Decimal?
    public var introductoryPeriod: SubscriptionPeriod?
    public var isInBillingRetry: Bool
    /// When billing retry gives up and the subscription expires.
    public var billingRetryEndDate: Date?
    public var gracePeriodExpirationDate: Date?
    public var expirationReason: ExpirationReason?
}
