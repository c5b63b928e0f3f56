import Foundation

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
