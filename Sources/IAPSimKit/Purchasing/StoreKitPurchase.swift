import Foundation

/// A purchase as an app asks StoreKit for one — `Product.purchase(options:)` with its
/// `Product.PurchaseOption`s, or an `SKPayment` — gathered before it becomes a
/// `PurchaseRequest`: the one mapping StoreKit 1 and StoreKit 2 share, so both ask for the same
/// purchase in the same way. The options are a set in StoreKit 2 and come in any order: the
/// request is made once all are read, so a promotional offer's signature is checked with the
/// app account token whichever option came first.
public struct StoreKitPurchase: Sendable, Equatable {
    public var productID: String
    /// `Product.PurchaseOption.quantity(_:)`, `SKPayment.quantity`.
    public var quantity = 1
    /// `Product.PurchaseOption.appAccountToken(_:)`; for StoreKit 1, `applicationUsername`
    /// when it is a UUID (Apple, "applicationUsername": the App Store copies a UUID there to
    /// the transaction's `appAccountToken`).
    public var appAccountToken: UUID?
    /// `Product.PurchaseOption.simulatesAskToBuyInSandbox(_:)`, `SKMutablePayment.simulatesAskToBuyInSandbox`.
    public var simulatesAskToBuy = false
    public var offer: Offer?

    /// The offer a purchase redeems.
    public enum Offer: Sendable, Equatable {
        /// `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`,
        /// `SKPaymentDiscount`: the signature in Base64.
        case promotional(id: String, keyID: String, nonce: UUID, timestamp: Int64, signature: String)
        /// `Product.PurchaseOption.winBackOffer(_:)`.
        case winBack(id: String)
    }

    public init(productID: String) {
        self.productID = productID
    }
}

extension PurchaseRequest {
    /// The request an app's StoreKit call makes.
    /// - Throws: `PurchaseRequestError.invalidQuantity` naming the quantity.
    public init(_ purchase: StoreKitPurchase) throws(PurchaseRequestError) {
        let offer: OfferRequest? =
            switch purchase.offer {
            case .promotional(let id, let keyID, let nonce, let timestamp, let signature):
                .offer(
                    id: id,
                    signature: PromotionalOfferSignature(
                        keyID: keyID, nonce: nonce.appleString, timestamp: timestamp, signature: signature),
                    appAccountToken: purchase.appAccountToken)
            case .winBack(let id): .offer(id: id, signature: nil)
            case nil: nil
            }
        try self.init(
            productID: purchase.productID, quantity: try PurchaseQuantity(purchase.quantity),
            outcome: purchase.simulatesAskToBuy ? .askToBuy : nil, offer: offer,
            appAccountToken: purchase.appAccountToken)
    }
}
