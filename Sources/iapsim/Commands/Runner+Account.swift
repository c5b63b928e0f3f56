import Foundation
import IAPSimKit

/// The account's side of "Offers and the account": purchases made outside the app, refund
/// requests and their decisions, and subscription price increases.
extension Runner {
    /// `buy <id> --outside-app`: `SKTestSession.buyProduct(identifier:)`.
    func buyOutsideApp(_ productID: String, quantity: Int) throws -> Report {
        let (catalog, session) = try catalogAndSession()
        let context = try session.storeKitContext()
        let result = try session.purchaseOutsideApp(productID, quantity: try PurchaseQuantity(quantity), in: catalog)
        let presenter = try presenter(catalog, settings: try session.settings())
        switch result {
        case .purchased(let transaction):
            let title = catalog.product(productID).map(presenter.title) ?? productID
            let what = quantity == 1 ? "“\(title)”" : "\(quantity) × “\(title)”"
            return Report(
                json: .object([
                    ("result", .string("purchased")), ("productID", .string(productID)), ("outsideApp", .bool(true)),
                    ("alreadyOwned", .bool(false)),
                    ("displayPrice", .string(presenter.displayPrice(transaction.price))),
                    ("transaction", .transaction(transaction, context)),
                ]),
                lines: [
                    "Purchased \(what) outside the app for \(presenter.displayPrice(transaction.price)). "
                        + "Transaction \(transaction.id); Transaction.updates delivers it at the app's next launch."
                ])
        case .redownloaded(let owned), .alreadySubscribed(let owned):
            return Report(
                json: .object([
                    ("result", .string("purchased")), ("productID", .string(productID)), ("outsideApp", .bool(true)),
                    ("alreadyOwned", .bool(true)), ("transaction", .transaction(owned, context)),
                ]),
                lines: ["The account already has \(productID) (transaction \(owned.id)); nothing was charged."])
        case .downgradeScheduled(let current, let next):
            return Report(
                json: .object([
                    ("result", .string("scheduled")), ("productID", .string(next)), ("outsideApp", .bool(true)),
                    ("effectiveDate", .date(current.expirationDate)), ("currentTransaction", .transaction(current, context)),
                ]),
                lines: ["\(next) will replace \(current.productID) at the next renewal. Nothing was charged now."])
        case .pending, .requestRepeated, .interrupted, .offerScheduled, .cancelled, .failed:
            // A purchase made outside the app has completed by the time the simulator hears of it.
            throw UnexpectedResult(detail: "a purchase outside the app ended as \(result)")
        }
    }

    /// `request-refund <tx>`: `Transaction.beginRefundRequest(in:)`.
    func requestRefund(_ id: UInt64, reason: RefundRequest.Reason?) throws -> Report {
        let (_, session) = try catalogAndSession()
        let request = try session.requestRefund(id, reason: reason)
        return Report(
            json: .object([
                ("id", .int(id)), ("result", .string("pending")), ("refundRequest", .refundRequest(request)),
            ]),
            lines: [
                "Refund requested for transaction \(id) (\(request.productID)); it is pending the App Store's decision: "
                    + "'iapsim refund \(id)' grants it, 'iapsim refund \(id) --decline' declines it."
            ])
    }

    /// `refund <tx> --decline`: the App Store declines the customer's request.
    func declineRefund(_ id: UInt64) throws -> Report {
        let (_, session) = try catalogAndSession()
        let context = try session.storeKitContext()
        let (request, transaction) = try session.declineRefund(id)
        return Report(
            json: .object([
                ("result", .string("declined")), ("refundRequest", .refundRequest(request)),
                ("transaction", .transaction(transaction, context)),
            ]),
            lines: ["Declined the refund request for transaction \(id): \(request.productID) stays purchased."])
    }

    /// `refund <tx> --reverse`: the App Store reverses a refund it granted.
    func reverseRefund(_ id: UInt64) throws -> Report {
        let (_, session) = try catalogAndSession()
        let context = try session.storeKitContext()
        let transaction = try session.reverseRefund(id)
        return Report(
            json: .object([("result", .string("reversed")), ("transaction", .transaction(transaction, context))]),
            lines: [
                "Reversed the refund of transaction \(id): its revocation is undone and \(transaction.productID) "
                    + "is reinstated."
            ])
    }

    /// `price-increase …`.
    func priceIncrease(_ action: PriceIncreaseAction) throws -> Report {
        let (_, session) = try catalogAndSession()
        let change: PriceIncreaseChange
        let line: (PriceIncreaseChange) -> String
        switch action {
        case .announce(let productID, let newPrice, let requiresConsent):
            change = try session.increasePrice(productID, to: newPrice, requiresConsent: requiresConsent)
            line = { change in
                let price = "\(newPrice.plainString) \(change.info.currency)"
                let when = change.expirationDate.map { " on \(ISO8601Date.string($0))" } ?? ""
                return requiresConsent
                    ? "Price increase to \(price) for \(productID): waiting for the subscriber's consent "
                        + "(PRICE_INCREASE/PENDING); without it the subscription expires at its renewal\(when)."
                    : "Price increase to \(price) for \(productID): the subscriber was notified "
                        + "(PRICE_INCREASE/ACCEPTED); it applies at the next renewal\(when)."
            }
        case .consent(let productID):
            change = try session.consentToPriceIncrease(productID)
            line = { change in
                let price = change.increase.map { "\($0.newPrice.plainString) \(change.info.currency)" } ?? ""
                return "The subscriber agreed to the price increase of \(productID): it renews at \(price) "
                    + "(PRICE_INCREASE/ACCEPTED)."
            }
        case .decline(let productID):
            change = try session.declinePriceIncrease(productID)
            line = { change in
                let when = change.expirationDate.map { " on \(ISO8601Date.string($0))" } ?? " at its period's end"
                return "The subscriber declined the price increase of \(productID): the subscription expires\(when) "
                    + "(expirationReason didNotConsentToPriceIncrease)."
            }
        }
        return Report(
            json: .object([
                ("productID", .string(change.productID)), ("originalID", .int(change.info.originalID)),
                ("priceIncreaseStatus", .string(change.priceIncreaseStatus.rawValue)),
                ("newPrice", .optional(change.increase?.newPrice.plainString)),
                ("currency", .string(change.info.currency)),
                ("willAutoRenew", .bool(change.info.willAutoRenew)),
                ("expirationReason", .optional(change.info.expirationReason?.rawValue)),
                ("expirationDate", .date(change.expirationDate)),
            ]),
            lines: [line(change)])
    }
}

extension JSON {
    static func refundRequest(_ request: RefundRequest) -> JSON {
        .object([
            ("transactionID", .int(request.transactionID)), ("productID", .string(request.productID)),
            ("requestDate", .date(request.requestDate)), ("reason", .optional(request.reason?.rawValue)),
        ])
    }
}
