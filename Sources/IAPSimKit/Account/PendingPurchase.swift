import Foundation

/// A purchase that has not completed: `SKPaymentTransactionState.deferred` for Ask to Buy, or
/// an interrupted purchase waiting for the buyer to act outside the app. It holds the
/// identifier the test session gives it: an approved Ask to Buy request completes with it; an
/// interrupted purchase ended as a failed one, and resolving it makes a new transaction.
public struct PendingPurchase: Sendable, Equatable {
    public enum Reason: String, Codable, Sendable {
        case askToBuy, interrupted
    }

    public var id: UInt64
    public var productID: String
    public var productType: ProductType
    public var purchasedQuantity: Int
    public var reason: Reason
    /// When it was asked for; for Ask to Buy, when it was last asked for: a repeated request
    /// moves it to then.
    public var requestDate: Date
    /// `Product.PurchaseOption.appAccountToken` the purchase was made with: the transaction
    /// it completes as carries it.
    public var appAccountToken: UUID? = nil

    /// How long an Ask to Buy request waits for an answer. Apple, "Testing Ask to Buy" and
    /// `SKPaymentTransactionState.deferred`: the parent has 24 hours to approve or decline;
    /// unanswered, the request is deleted and the app's observer hears nothing more.
    public static let askToBuyLifetime: TimeInterval = 24 * 60 * 60

    /// When an Ask to Buy request expires unanswered; nil for an interrupted purchase, which
    /// waits for its issue to be resolved however long that takes.
    public var expirationDate: Date? {
        reason == .askToBuy ? requestDate + Self.askToBuyLifetime : nil
    }

    /// `purchases`, with the Ask to Buy requests for one product merged into one: the first
    /// request's identifier, the latest request's date and quantity. Apple, "Testing Ask to
    /// Buy": duplicate requests for a product are consolidated, and a repeated request starts
    /// the 24 hours again. States written before iapsim did so may hold several.
    static func consolidated(_ purchases: [PendingPurchase]) -> [PendingPurchase] {
        var result: [PendingPurchase] = []
        for purchase in purchases {
            guard purchase.reason == .askToBuy,
                let index = result.firstIndex(where: { $0.reason == .askToBuy && $0.productID == purchase.productID })
            else {
                result.append(purchase)
                continue
            }
            let (first, later) =
                result[index].id < purchase.id ? (result[index], purchase) : (purchase, result[index])
            var merged = first
            if later.requestDate >= first.requestDate {
                merged.requestDate = later.requestDate
                merged.purchasedQuantity = later.purchasedQuantity
            }
            result[index] = merged
        }
        return result
    }
}
