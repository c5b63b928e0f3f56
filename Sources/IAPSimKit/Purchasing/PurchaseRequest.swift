import Foundation

/// What a buyer asks of `Product.purchase(options:)`, checked before anything is quoted: the
/// product, how many (`PurchaseQuantity`), the options StoreKit takes with it
/// (`Product.PurchaseOption.appAccountToken(_:)`, an offer, a billing plan), how the simulated
/// purchase should end, and whether it is the family organiser's purchase shared with the
/// account rather than one it makes.
///
/// The textual forms a front end reads (`PurchaseQuantity(text:)`, `UUID(appAccountToken:)`,
/// `BillingPlanType(text:)`, `StoreSession.Outcome(text:)`) are parsed here too, so every
/// front end refuses the same input in the same words.
public struct PurchaseRequest: Sendable, Equatable {
    public let productID: String
    public let quantity: PurchaseQuantity
    /// How the purchase ends, over the session settings (`buy --outcome`); nil leaves it to them.
    public let outcome: StoreSession.Outcome?
    /// A promotional, win-back or offer-code offer to redeem.
    public let offer: OfferRequest?
    /// `Product.PurchaseOption.appAccountToken(_:)`: the UUID the transaction, its renewals and
    /// a purchase left pending carry (spelled in lowercase, as the App Store's signed data does).
    public let appAccountToken: UUID?
    /// The family organiser's purchase, shared with this account (Apple, "Supporting Family
    /// Sharing in your app"): nothing is charged, so no outcome or offer applies.
    public let isFamilyMember: Bool
    /// How a subscription is paid for; `.billedUpfront` for everything else.
    public let billingPlan: BillingPlanType

    /// - Throws: `PurchaseRequestError.familyMemberPurchase` when a family member's request
    ///   names an outcome or an offer: the organiser's purchase is already made.
    public init(
        productID: String, quantity: PurchaseQuantity = .one, outcome: StoreSession.Outcome? = nil,
        offer: OfferRequest? = nil, appAccountToken: UUID? = nil, isFamilyMember: Bool = false,
        billingPlan: BillingPlanType = .billedUpfront
    ) throws(PurchaseRequestError) {
        if isFamilyMember, outcome != nil || offer != nil { throw .familyMemberPurchase }
        self.productID = productID
        self.quantity = quantity
        self.outcome = outcome
        self.offer = offer
        self.appAccountToken = appAccountToken
        self.isFamilyMember = isFamilyMember
        self.billingPlan = billingPlan
    }

    /// A request the library makes itself (a pending purchase completing, a purchase outside
    /// the app): never a family member's, so nothing to refuse.
    init(made productID: String, quantity: PurchaseQuantity, offer: OfferRequest? = nil, appAccountToken: UUID? = nil) {
        self.productID = productID
        self.quantity = quantity
        self.outcome = nil
        self.offer = offer
        self.appAccountToken = appAccountToken
        self.isFamilyMember = false
        self.billingPlan = .billedUpfront
    }

}

/// Why a purchase request was refused before anything was quoted. Each message names the
/// text or value refused, in the words of `iapsim buy`'s options.
public enum PurchaseRequestError: Error, Equatable, Sendable {
    /// A quantity outside 1…10 (`SKMutablePayment.quantity`), or text that is not one.
    case invalidQuantity(String)
    /// `Product.PurchaseOption.appAccountToken(_:)` takes a UUID.
    case invalidAppAccountToken(String)
    case invalidBillingPlan(String)
    /// Not one of the outcomes a purchase can be given.
    case invalidOutcome(String)
    /// `fail=NAME` with an error Apple's Purchase API does not fail with.
    case errorNotAllowed(name: String)
    /// A family member's request with an outcome or an offer.
    case familyMemberPurchase
}

extension PurchaseRequestError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .invalidQuantity(let text):
            "--quantity \(text): expected a whole number from \(PurchaseQuantity.range.lowerBound) to "
                + "\(PurchaseQuantity.range.upperBound)"
        case .invalidAppAccountToken(let text):
            "--app-account-token \(text): expected a UUID such as 0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e"
        case .invalidBillingPlan(let text):
            "--billing-plan \(text): expected monthly or upfront"
        case .invalidOutcome(let text):
            "--outcome \(text): expected success, cancel, fail, fail=ERROR, ask-to-buy or interrupted"
        case .errorNotAllowed(let name):
            "--outcome fail=\(name): not \(StoreKitTestAPI.purchase.allowedErrors), the errors Apple's "
                + "Purchase API takes; 'iapsim help errors' lists them"
        case .familyMemberPurchase:
            "--as-family-member does not go with --outcome or --offer: the organiser's purchase is already made"
        }
    }
}

extension UUID {
    /// An app account token as a person types it: a UUID in its 36-character form, in either
    /// case (`Product.PurchaseOption.appAccountToken(_:)` takes a UUID).
    /// - Throws: `PurchaseRequestError.invalidAppAccountToken` naming `text`.
    public init(appAccountToken text: String) throws(PurchaseRequestError) {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { throw .invalidAppAccountToken(text) }
        self = uuid
    }

    /// A UUID as Apple writes an app account token in signed data and receipts: lowercase.
    public var appleString: String { uuidString.lowercased() }

    /// A UUID in its 36-character form, in either case: a token read back from the state.
    init?(appleString text: String) {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { return nil }
        self = uuid
    }
}

extension StoreSession.Outcome {
    /// An outcome as `buy --outcome` spells it: `success`, `cancel`, `ask-to-buy`,
    /// `interrupted`, `fail` (`SKError.unknown`) or `fail=ERROR` with an error Apple's Purchase
    /// API fails with (`SKTestSession.setSimulatedError(_:forAPI: .purchase)`).
    /// - Throws: `PurchaseRequestError.invalidOutcome`, or `.errorNotAllowed` naming the error.
    public init(text: String) throws(PurchaseRequestError) {
        switch text {
        case "success": self = .success
        case "cancel": self = .cancel
        case "ask-to-buy": self = .askToBuy
        case "interrupted": self = .interrupted
        case "fail": self = .fail(SimulatedError.unknown)
        default:
            guard text.hasPrefix("fail="), text.count > 5 else { throw .invalidOutcome(text) }
            let name = String(text.dropFirst(5))
            do {
                self = .fail(try StoreKitTestAPI.purchase.error(named: name))
            } catch {
                throw .errorNotAllowed(name: name)
            }
        }
    }
}
