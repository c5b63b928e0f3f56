import Foundation

/// Why a purchase could not start. Named after StoreKit's errors where it has one.
public enum PurchaseError: Error, Equatable, Sendable {
    /// `SKError.storeProductNotAvailable` (5): the store has no such product.
    /// No product of the store has the identifier: the `.storekit` file searched and the
    /// identifiers nearest the one asked for.
    case productNotAvailable(productID: String, storeKitPath: String = "", nearest: [String] = [])
    /// The store has the product, but the app's identifier list does not ask for it, so an app
    /// would never have received the `SKProduct` to buy it with.
    case productNotRequested(productID: String, productIDsPath: String)
    /// `StoreKitError.notAvailableInStorefront`: the pricing file has no price for it there.
    case notAvailableInStorefront(productID: String, storefront: String)
    /// `Product.PurchaseError.invalidQuantity`: more than one of something that is not consumable.
    case invalidQuantity(productID: String, quantity: Int)
    /// `buy --as-family-member` of a product the catalog does not mark `familyShareable`, or of
    /// a consumable, which Family Sharing never shares (Apple, "Supporting Family Sharing in
    /// your app").
    case notFamilyShareable(productID: String, isConsumable: Bool)
    /// `buy --billing-plan monthly` of a subscription whose `.storekit` entry has no enabled
    /// monthly billing plan.
    case noMonthlyBillingPlan(productID: String)
    /// `buy --billing-plan monthly` while the group already has an active subscription (a
    /// plan is chosen when a subscription starts or upgrades), or with an offer.
    case billingPlanNotApplicable(productID: String, reason: String)
}

extension PurchaseError {
    /// What StoreKit 2 throws for it, one mapping for every adapter: a quantity above one of
    /// something not consumable is `Product.PurchaseError.invalidQuantity`, as Apple says;
    /// not in the storefront is `StoreKitError.notAvailableInStorefront`; every other refusal
    /// leaves the product out of reach: `productUnavailable`.
    public var storeKitError: SimulatedError {
        switch self {
        case .invalidQuantity: .purchase(.invalidQuantity)
        case .notAvailableInStorefront: .storeKit(.notAvailableInStorefront)
        case .productNotAvailable, .productNotRequested, .notFamilyShareable, .noMonthlyBillingPlan,
            .billingPlanNotApplicable:
            .purchase(.productUnavailable)
        }
    }
}

extension PurchaseError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .productNotAvailable(let id, let path, let nearest):
            "\(id): no such product in \(path.isEmpty ? "the store" : path) (storeProductNotAvailable); "
                + (nearest.isEmpty
                    ? "" : "did you mean \(nearest.map { "'\($0)'" }.joined(separator: " or "))? ")
                + "see 'iapsim list'"
        case .productNotRequested(let id, let path):
            "\(id): the store has it but \(path) does not list it, so the app cannot buy it; add it there"
        case .notAvailableInStorefront(let id, let storefront):
            "\(id): not sold in the \(storefront) storefront (notAvailableInStorefront); add a price for it to the pricing file"
        case .billingPlanNotApplicable(let id, let reason):
            "\(id): --billing-plan applies to a subscription that starts or upgrades now; \(reason)"
        case .noMonthlyBillingPlan(let id):
            "\(id): the catalog gives it no enabled MONTHLY billing plan (billingPlans); buy it without --billing-plan"
        case .invalidQuantity(let id, let quantity):
            "\(id): a quantity of \(quantity) applies only to consumables (invalidQuantity)"
        case .notFamilyShareable(let id, let isConsumable):
            isConsumable
                ? "\(id): a consumable, and Family Sharing never shares consumables; drop --as-family-member"
                : "\(id): not family shareable (the catalog's familyShareable is false), "
                    + "so no family member can share it"
        }
    }
}
