import Foundation

extension StoreSession {
    /// `SKTestSession.buyProduct(identifier:)`: a purchase made outside the app — on another
    /// device, or in the App Store — while the app is not running. No prompt, and none of the
    /// app's own controls apply (its device's `canMakePayments`, Ask to Buy, simulated
    /// purchase or load-products errors): the buyer completed it elsewhere. The app learns of
    /// it at its next launch, when `Transaction.updates` delivers it once
    /// (`StoreEvent.delivered`), as it does an interrupted purchase resolved.
    /// - Returns: `.purchased` with the new transaction, or what charged nothing (a
    ///   non-consumable owned already, an active subscription, a downgrade scheduled).
    /// - Throws: `PurchaseError` when the store does not sell it, or for a quantity other
    ///   than 1 of a product that is not a consumable.
    public func purchaseOutsideApp(_ productID: String, quantity: Int = 1, in catalog: Catalog) throws
        -> PurchaseResult
    {
        let product = try catalog.purchasableProduct(productID)
        if quantity != 1, product.type != .consumable {
            throw PurchaseError.invalidQuantity(productID: product.id, quantity: quantity)
        }
        return try transact { state, moment in
            var quote = Self.quote(product, quantity: quantity, in: catalog, state: state, moment: moment)
            quote.canMakePayments = true
            let result = try Self.purchase(quote, in: catalog, outcome: .success, state: &state, moment: moment)
            if case .purchased(let transaction) = result {
                state.simulation.undeliveredTransactionIDs.append(transaction.id)
            }
            return result
        }
    }
}
