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

extension RenewalInfo {
    /// StoreKit 2's `Product.SubscriptionInfo.RenewalInfo.PriceIncreaseStatus`: what a
    /// subscription's renewal says of a price increase. Worked out once, in `facts`, for the
    /// status array, `iapsim status`'s subscriptions and the signed renewal info alike.
    public enum PriceIncreaseStatus: String, Sendable, CaseIterable {
        /// No increase applies to the next renewal: none was announced, or the subscription
        /// will not renew (the subscriber declined it, turned auto-renew off, or it ended).
        case noIncreasePending
        /// An increase that needs consent waits for the subscriber's answer.
        case pending
        /// The subscriber agreed, or the increase needs no consent and they were told.
        case agreed

        /// JWSRenewalInfoDecodedPayload's `priceIncreaseStatus`: 0 pending, 1 agreed; nil when
        /// no increase is pending, and the field is left out.
        public var jwsValue: Int? {
            switch self {
            case .noIncreasePending: nil
            case .pending: 0
            case .agreed: 1
            }
        }
    }

    /// The rule: an increase is pending or agreed only for a renewal that will happen. A
    /// subscriber who declined one, or turned auto-renew off, renews at no price at all.
    /// - Parameter willAutoRenew: whether the chain renews, as `facts` works it out.
    func priceIncreaseStatus(willAutoRenew: Bool) -> PriceIncreaseStatus {
        guard willAutoRenew, let increase = priceIncrease else { return .noIncreasePending }
        switch increase.status {
        case .pending: return .pending
        case .agreed: return .agreed
        }
    }
}
