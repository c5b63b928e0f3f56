import Foundation

/// A price increase of an auto-renewable subscription the App Store told the subscriber of,
/// kept in the chain's `RenewalInfo` until the renewal it applies to.
///
/// Apple, "Managing Price Increases" (App Store Connect Help) and "Testing a price increase"
/// (StoreKit testing in Xcode): an increase that needs the subscriber's consent applies at the
/// next renewal only if they agree; one that does not, applies at the next renewal after the
/// App Store has notified them. A subscriber who never agrees to one that needs consent is not
/// renewed: the subscription expires with `didNotConsentToPriceIncrease`.
public struct PriceIncrease: Sendable, Equatable {
    /// StoreKit 2's `Product.SubscriptionInfo.RenewalInfo.PriceIncreaseStatus` raw values
    /// (there is also `noIncreasePending`: no `PriceIncrease` at all). JWS renewal info's
    /// `priceIncreaseStatus`: 0 pending, 1 agreed.
    public enum Status: String, Sendable, Codable {
        case pending, agreed
    }

    /// The renewal price the increase brings, in the subscription's currency.
    public var newPrice: Decimal
    /// Whether the subscriber must agree (App Store Connect: "requires customer consent").
    public var requiresConsent: Bool
    public var status: Status
    /// When the App Store told the subscriber.
    public var date: Date

    public init(newPrice: Decimal, requiresConsent: Bool, status: Status, date: Date) {
        self.newPrice = newPrice
        self.requiresConsent = requiresConsent
        self.status = status
        self.date = date
    }

    /// JWSRenewalInfoDecodedPayload's `priceIncreaseStatus`: 0 the customer has not responded
    /// to an increase that needs consent, 1 they agreed, or the increase needs none and they
    /// were notified.
    public var jwsStatus: Int { status == .agreed ? 1 : 0 }
}
