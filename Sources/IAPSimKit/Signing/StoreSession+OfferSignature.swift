import Foundation

extension StoreSession {
    /// Signs a promotional offer as a developer's server does (Apple, "Generating a signature
    /// for promotional offers"), with the catalog's `subscriptionOffersKeyPair`: the key Xcode
    /// checks promotional offers with locally.
    /// - Parameters:
    ///   - appAccountToken: the token the purchase will carry; none signs an empty one.
    ///   - timestamp: milliseconds since 1970; nil is the real clock's now, as a server's would be.
    /// - Throws: `OfferSignatureError.noKeyPair` for a catalog without a key pair,
    ///   `.notAPromotionalOffer` for an offer the product does not have, `PurchaseError` for a
    ///   product the catalog lacks.
    public func signPromotionalOffer(
        productID: String, offerID: String, appAccountToken: UUID?, nonce: UUID, timestamp: Int64?, in catalog: Catalog
    ) throws -> PromotionalOfferSignature {
        guard let key = catalog.store.offerSigningKey else {
            throw OfferSignatureError.noKeyPair(path: catalog.source.storeKitPath)
        }
        let product = try catalog.purchasableProduct(productID)
        guard product.subscription?.promotionalOffers.contains(where: { $0.id == offerID }) == true else {
            throw OfferSignatureError.notAPromotionalOffer(offerID: offerID, productID: productID)
        }
        let time = timestamp ?? Int64((realNow().timeIntervalSince1970 * 1000).rounded(.down))
        return try PromotionalOfferSignature.sign(
            with: key, bundleID: try settings().bundleID, productID: productID, offerID: offerID,
            appAccountToken: appAccountToken?.appleString, nonce: nonce, timestamp: time)
    }
}
