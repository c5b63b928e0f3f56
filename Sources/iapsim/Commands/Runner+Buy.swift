import Foundation
import IAPSimKit

extension Runner {
    /// `buy`: confirm on a terminal, then pay, as the seed app's "Buy now" flow does; the
    /// session's settings or `--outcome` decide how it ends.
    func buy(_ productID: String, quantity: Int, assumeYes: Bool, outcome: BuyOutcome?) throws -> ExitCode {
        _ = try requestedLocale()
        let (catalog, session, settings) = try catalogSessionAndSettings()
        if let error = settings.simulatedError(.loadProductsError) {
            throw SimulationError.simulated(api: "Loading products", error: error)
        }
        let product = try catalog.purchasableProduct(productID)
        let presenter = try presenter(catalog, settings: settings)
        let forced = try outcome.map(Self.sessionOutcome)
        let title = TerminalText.escaped(presenter.title(product))
        let purchase = Purchase(
            product: product, what: quantity == 1 ? "“\(title)”" : "\(quantity) × “\(title)”", presenter: presenter)
        // SKPaymentQueue.canMakePayments() is checked before the buyer is asked anything.
        guard settings.paymentsAllowed else {
            return report(.failed(SimulatedError.paymentNotAllowed), of: purchase)
        }
        let total = presenter.displayPrice(product.price * Decimal(quantity))
        guard confirm("Buy \(purchase.what) for \(total)?", assumeYes: assumeYes) else {
            return report(.cancelled, of: purchase)
        }
        let receipt = try session.purchase(product, quantity: quantity, in: catalog, outcome: forced)
        let code = report(receipt.result, of: purchase, balance: receipt.balance)
        noteUnfinished(receipt.unfinishedTransactionIDs.filter { $0 != receipt.result.transaction?.id })
        return code
    }

    /// What a purchase's messages need: the product, how to name it, how to price it.
    private struct Purchase {
        var product: Product
        /// `“Apple Book”` or `3 × “100 Coins”`, escaped for the terminal.
        var what: String
        var presenter: ProductPresenter
        var productID: String { product.id }
    }

    private static func sessionOutcome(_ outcome: BuyOutcome) throws -> StoreSession.Outcome {
        switch outcome {
        case .success: return .success
        case .cancel: return .cancel
        case .askToBuy: return .askToBuy
        case .interrupted: return .interrupted
        case .fail(let name):
            guard let name else { return .fail(SimulatedError.unknown) }
            guard let error = SimulatedError.named(name) else {
                throw UsageError(
                    "--outcome fail=\(name): unknown error; 'iapsim help errors' lists them", command: .buy)
            }
            return .fail(error)
        }
    }

    /// Prints a purchase's result and returns its exit code.
    private func report(_ result: StoreSession.PurchaseResult, of purchase: Purchase, balance: Int = 0) -> ExitCode {
        let (productID, what, presenter, product) = (
            purchase.productID, purchase.what, purchase.presenter, purchase.product
        )
        switch result {
        case .purchased(let transaction), .redownloaded(let transaction), .alreadySubscribed(let transaction):
            let charged = presenter.displayPrice(Decimal(plainDecimal: transaction.price) ?? product.price)
            if options.json {
                var members: [(String, JSON)] = [
                    ("result", .string("purchased")),
                    ("productID", .string(productID)),
                    ("alreadyOwned", .bool(result != .purchased(transaction))),
                    ("displayPrice", .string(charged)),
                    ("transaction", .transaction(transaction)),
                ]
                if product.type == .consumable { members.append(("balance", .int(balance))) }
                emit(.object(members))
                return .success
            }
            let until = transaction.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
            switch result {
            case .redownloaded:
                console.out(
                    "You've already purchased this. It will be restored for free: \(what), transaction \(transaction.id)."
                )
            case .alreadySubscribed:
                console.out("You're currently subscribed to \(what)\(until). Nothing was charged.")
            default:
                if product.type == .autoRenewable {
                    let offer = transaction.offerType == .introductory ? " (introductory offer)" : ""
                    console.out("Subscribed to \(what) for \(charged)\(offer)\(until). Transaction \(transaction.id).")
                } else {
                    let mark = console.color ? console.styled("✔", .green) + " " : ""
                    console.out(mark + "Purchased \(what) for \(charged). Transaction \(transaction.id).")
                }
            }
            return .success
        case .downgradeScheduled(let current, let next):
            let when = current.expirationDate.map(ISO8601Date.string) ?? "the next renewal"
            if options.json {
                emit(
                    .object([
                        ("result", .string("scheduled")), ("productID", .string(next)),
                        ("effectiveDate", .date(current.expirationDate)), ("currentTransaction", .transaction(current)),
                    ]))
            } else {
                console.out(
                    "\(what) will replace \(current.productID) at the next renewal, \(when). Nothing was charged now.")
            }
            return .success
        case .pending(let pending):
            if options.json {
                emit(
                    .object([
                        ("result", .string("pending")), ("productID", .string(productID)),
                        ("pending", .pending(pending)),
                    ]))
            } else if pending.reason == .askToBuy {
                console.out(
                    "Ask to Buy: \(what) is waiting for approval as transaction \(pending.id). "
                        + "Run 'iapsim approve \(pending.id)' or 'iapsim decline \(pending.id)'.")
            } else {
                console.out(
                    "The purchase of \(what) was interrupted: transaction \(pending.id) is pending. "
                        + "Run 'iapsim resolve \(pending.id)' to complete it.")
            }
            return .pending
        case .cancelled:
            if options.json {
                emit(
                    .object([
                        ("result", .string("cancelled")), ("productID", .string(productID)),
                        ("error", .error(SimulatedError.paymentCancelled)),
                    ]))
            }
            console.notice("Cancelled: nothing was charged.")
            return .cancelled
        case .failed(let error):
            if options.json {
                emit(
                    .object([
                        ("result", .string("failed")), ("productID", .string(productID)), ("error", .error(error)),
                    ]))
            }
            if error.kind == .notAllowed {
                console.error(
                    "Error: In-App Purchases are not allowed on this device. (\(error.qualifiedName); 'iapsim settings set payments-allowed true' allows them)"
                )
            } else {
                let code = error.code.map { " (\($0))" } ?? ""
                console.error(
                    "Error: the purchase of \(what) failed with \(error.qualifiedName)\(code); nothing was charged")
            }
            switch error.kind {
            case .cancelled: return .cancelled
            case .notAllowed: return .notAllowed
            case .notAvailable: return .notAvailable
            case .failed: return .purchaseFailed
            }
        }
    }
}
