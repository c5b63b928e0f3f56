import Foundation

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
    /// Whether the chain's end has been notified (`EXPIRED`), so it is notified once.
    public var expirationNotified: Bool = false
    /// A price increase the subscriber was told of, until the renewal it applies to.
    public var priceIncrease: PriceIncrease? = nil

    /// StoreKit 2's `RenewalInfo.priceIncreaseStatus`: `noIncreasePending`, `pending` or
    /// `agreed`.
    public var priceIncreaseStatus: String { priceIncrease?.status.rawValue ?? "noIncreasePending" }

    /// What the next full-price renewal charges: an agreed increase's price, else the
    /// auto-renew product's as captured.
    public var nextRenewalPrice: Decimal {
        priceIncrease?.status == .agreed ? priceIncrease!.newPrice : autoRenewPrice
    }
}
