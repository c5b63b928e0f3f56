import Foundation

/// How a subscription period is paid for: the `billingPlanType` of a format-5 `.storekit`
/// file's `billingPlans`, and of a transaction paid under a monthly plan.
public enum BillingPlanType: String, Sendable, CaseIterable {
    /// The whole period at once: every subscription's plan unless it says otherwise.
    case billedUpfront = "BILLED_UPFRONT"
    /// Monthly payments within a commitment of the subscription's period.
    case monthly = "MONTHLY"

    /// The plan as a person names it (`buy --billing-plan monthly`): `monthly`, or `upfront`
    /// (`billed_upfront`), in any case.
    /// - Throws: `PurchaseRequestError.invalidBillingPlan` naming `text`.
    public init(text: String) throws(PurchaseRequestError) {
        switch text.lowercased() {
        case "monthly": self = .monthly
        case "upfront", "billed_upfront": self = .billedUpfront
        default: throw .invalidBillingPlan(text)
        }
    }
}
