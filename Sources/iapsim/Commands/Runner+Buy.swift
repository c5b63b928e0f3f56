import Foundation
import IAPSimKit

extension Runner {
    /// `buy`: confirm on a terminal, then pay, as the seed app's "Buy now" flow does.
    func buy(_ productID: String, quantity: Int, assumeYes: Bool) throws -> ExitCode {
        let locale = try requestedLocale()
        let catalog = try loadCatalog()
        let product = try catalog.purchasableProduct(productID)
        let session = try session()
        let presenter = ProductPresenter(catalog: catalog, locale: locale)
        let title = TerminalText.escaped(presenter.title(product))
        let total = presenter.displayPrice(product.price * Decimal(quantity))
        let what = quantity == 1 ? "“\(title)”" : "\(quantity) × “\(title)”"
        guard confirm("Buy \(what) for \(total)?", assumeYes: assumeYes) else {
            if options.json {
                emit(.object([("result", .string("cancelled")), ("productID", .string(productID)),
                              ("error", .object([("name", .string("paymentCancelled")), ("code", .int(2))]))]))
            } else {
                console.error("Cancelled: nothing was charged.")
            }
            return .cancelled
        }
        let outcome = try session.buy(product, quantity: quantity, storefront: catalog.store.storefront)
        let transaction = outcome.transaction
        if options.json {
            var members: [(String, JSON)] = [
                ("result", .string("purchased")),
                ("productID", .string(productID)),
                ("alreadyOwned", .bool(outcome != .purchased(transaction))),
                ("displayPrice", .string(presenter.displayPrice(Decimal(string: transaction.price) ?? product.price))),
                ("transaction", .transaction(transaction)),
            ]
            if product.type == .consumable {
                members.append(("balance", .int(try session.store.read().app.consumables[productID] ?? 0)))
            }
            emit(.object(members))
            return .success
        }
        switch outcome {
        case .purchased(let transaction):
            let charged = presenter.displayPrice(Decimal(string: transaction.price) ?? product.price)
            switch product.type {
            case .autoRenewable:
                let until = transaction.expirationDate.map { " until \(ISO8601.string($0))" } ?? ""
                let offer = transaction.offerType == .introductory ? " (introductory offer)" : ""
                console.out("Subscribed to \(what) for \(charged)\(offer)\(until). Transaction \(transaction.id).")
            default:
                console.out("Purchased \(what) for \(charged). Transaction \(transaction.id).")
            }
        case .redownloaded(let transaction):
            console.out(
                "You've already purchased this. It will be restored for free: \(what), transaction \(transaction.id).")
        case .alreadySubscribed(let transaction):
            let until = transaction.expirationDate.map { " until \(ISO8601.string($0))" } ?? ""
            console.out("You're currently subscribed to \(what)\(until). Nothing was charged.")
        }
        return .success
    }
}
