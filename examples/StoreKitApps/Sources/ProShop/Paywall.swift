import StoreKit

/// The paywall's text for a subscription, as a SwiftUI paywall computes it before drawing:
/// "$4.99 / 1 month", whether the person may take the introductory offer, and what their
/// current subscription's status says about renewing.
public struct Paywall: Sendable {
    public struct Plan: Sendable, Equatable {
        public let productID: String
        /// "$4.99 / 1 month".
        public let priceLine: String
        /// "1 week free", when the product has an introductory offer the person may take.
        public let offerLine: String?
    }

    public let plans: [Plan]

    public init(products: [Product]) async {
        var plans: [Plan] = []
        for product in products {
            guard let subscription = product.subscription else { continue }
            let period = subscription.subscriptionPeriod.formatted(product.subscriptionPeriodFormatStyle)
            var offerLine: String?
            if let offer = subscription.introductoryOffer, await subscription.isEligibleForIntroOffer {
                let length = offer.period.formatted(product.subscriptionPeriodFormatStyle, referenceDate: Date())
                offerLine = offer.paymentMode == .freeTrial ? "\(length) free" : "\(offer.displayPrice) for \(length)"
            }
            plans.append(Plan(productID: product.id, priceLine: "\(product.displayPrice) / \(period)", offerLine: offerLine))
        }
        self.plans = plans
    }

    /// "Renews on …", "Ends on …" or "Billing problem", from the transaction's subscription
    /// status; nil for a purchase that is not a subscription.
    public static func renewalLine(for transaction: Transaction) async -> String? {
        guard let status = await transaction.subscriptionStatus,
            case .verified(let renewal) = status.renewalInfo
        else { return nil }
        switch status.state {
        case .inBillingRetryPeriod, .inGracePeriod: return "Billing problem"
        case .expired, .revoked: return "Ended"
        default: return renewal.willAutoRenew ? "Renews" : "Ends at the end of the period"
        }
    }
}
