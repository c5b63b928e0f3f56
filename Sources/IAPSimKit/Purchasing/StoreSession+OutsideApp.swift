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
    public func purchaseOutsideApp(_ productID: String, quantity: PurchaseQuantity = .one, in catalog: Catalog) throws
        -> PurchaseResult
    {
        let product = try catalog.purchasableProduct(productID)
        try Self.check(quantity, of: product)
        return try transact { state, moment in
            let request = PurchaseRequest(made: product.id, quantity: quantity)
            var quote = Self.quote(product, request: request, in: catalog, state: state, moment: moment)
            quote.canMakePayments = true
            let result = try Self.purchase(
                quote, in: catalog, outcome: .success, state: &state, moment: moment.outsideTheApp)
            if case .purchased(let transaction) = result {
                state.simulation.undeliveredTransactionIDs.append(transaction.id)
            }
            return result
        }
    }
}
