import Foundation
import IAPSimJSON
import IAPSimKit

extension StoreSession.PurchaseResult {
    /// A downgrade scheduled for the next renewal: its report shows the current transaction.
    var isScheduled: Bool {
        if case .downgradeScheduled = self { return true }
        return false
    }
}

/// How a purchase reads: the question before it and the report after it.
struct PurchaseWords {
    var quote: PurchaseQuote
    var presenter: ProductPresenter
    /// What StoreKit adds to the transactions shown; set once the purchase has run.
    var context = StoreKitContext(signedDate: Date(timeIntervalSince1970: 0), appTransactionID: "")

    var product: Product { quote.product }

    /// `“Apple Book”` or `3 × “100 Coins”`.
    var what: String {
        let title = "“\(presenter.title(product))”"
        return quote.quantity == 1 ? title : "\(quote.quantity) × \(title)"
    }

    /// What the payment sheet asks; nil when there is nothing to confirm.
    var question: String? {
        let price = presenter.displayPrice(quote.price)
        switch quote.kind {
        case .purchase:
            return "Buy \(what) for \(price)?"
        case .introductoryOffer(let offer):
            let then = presenter.recurringPrice(product).map { ", then \($0)" } ?? ""
            if offer.paymentMode == .freeTrial {
                return "Start the free \(presenter.trialLength(offer)) of \(what)\(then)?"
            }
            return "Subscribe to \(what) for \(presenter.offerSummary(offer))\(then)?"
        case .redownload:
            return "Download \(what) again (already purchased, free)?"
        case .alreadySubscribed:
            return nil
        case .keepCurrentPlan:
            return "Keep \(what) and cancel the change planned for the next renewal? Nothing is charged now."
        case .upgrade:
            return "Upgrade to \(what) for \(presenter.recurringPrice(product) ?? price), starting now?"
        case .downgrade:
            let then = presenter.recurringPrice(product).map { " for \($0)" } ?? ""
            return "Switch to \(what)\(then) at the next renewal? Nothing is charged now."
        }
    }

    /// The report of a purchase's result.
    func report(_ result: StoreSession.PurchaseResult, balance: Int = 0) -> Report {
        let productID = product.id
        switch result {
        case .purchased(let transaction), .redownloaded(let transaction), .alreadySubscribed(let transaction):
            let charged = presenter.displayPrice(transaction.price)
            var members: [(String, JSON)] = [
                ("result", .string("purchased")),
                ("productID", .string(productID)),
                ("alreadyOwned", .bool(result != .purchased(transaction))),
                ("displayPrice", .string(charged)),
                ("transaction", .transaction(transaction, context)),
            ]
            if product.type == .consumable { members.append(("balance", .int(balance))) }
            let until = transaction.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
            var report = Report(json: .object(members))
            switch result {
            case .redownloaded:
                report.text = {
                    [
                        .line(
                            "You've already purchased this. It will be restored for free: \(what), transaction \(transaction.id)."
                        )
                    ]
                }
            case .alreadySubscribed:
                report.text = { [.line("You're currently subscribed to \(what)\(until). Nothing was charged.")] }
            default:
                if product.type == .autoRenewable {
                    let offer =
                        transaction.offerType.map { type in
                            " (\(Self.offerName(type))\(transaction.offerID.map { " \($0)" } ?? ""))"
                        } ?? ""
                    report.text = {
                        [.line("Subscribed to \(what) for \(charged)\(offer)\(until). Transaction \(transaction.id).")]
                    }
                } else {
                    report.text = { [.success("Purchased \(what) for \(charged). Transaction \(transaction.id).")] }
                }
            }
            return report
        case .offerScheduled(let current, let offer):
            let when = current.expirationDate.map(ISO8601Date.string) ?? "the next renewal"
            return Report(
                json: .object([
                    ("result", .string("scheduled")), ("productID", .string(productID)),
                    ("effectiveDate", .date(current.expirationDate)),
                    ("currentTransaction", .transaction(current, context)),
                    ("offer", Self.offerJSON(offer)),
                ]),
                lines: [
                    "The \(Self.offerName(offer.type)) \(offer.offer.id ?? "") for \(what) starts at the next renewal, "
                        + "\(when). Nothing was charged now."
                ])
        case .downgradeScheduled(let current, let next):
            let when = current.expirationDate.map(ISO8601Date.string) ?? "the next renewal"
            return Report(
                json: .object([
                    ("result", .string("scheduled")), ("productID", .string(next)),
                    ("effectiveDate", .date(current.expirationDate)),
                    ("currentTransaction", .transaction(current, context)),
                ]),
                lines: [
                    "\(what) will replace \(current.productID) at the next renewal, \(when). Nothing was charged now."
                ])
        case .pending(let pending):
            return Report(
                status: .pending,
                json: .object([
                    ("result", .string("pending")), ("productID", .string(productID)), ("pending", .pending(pending)),
                ]),
                lines: [
                    "Ask to Buy: \(what) is waiting for approval as transaction \(pending.id). "
                        + "Run 'iapsim approve \(pending.id)' or 'iapsim decline \(pending.id)'."
                ])
        case .requestRepeated(let pending):
            let until = pending.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
            return Report(
                status: .pending,
                json: .object([
                    ("result", .string("pending")), ("productID", .string(productID)), ("pending", .pending(pending)),
                    ("requestRepeated", .bool(true)),
                ]),
                lines: [
                    "Ask to Buy: \(what) was already waiting for approval as transaction \(pending.id); "
                        + "the request was asked again and waits\(until). "
                        + "Run 'iapsim approve \(pending.id)' or 'iapsim decline \(pending.id)'."
                ])
        case .interrupted(let interrupted):
            return Report(
                status: .interrupted,
                json: .object([
                    ("result", .string("interrupted")), ("productID", .string(productID)),
                    ("interrupted", .pending(interrupted)),
                ]),
                lines: [
                    "The purchase of \(what) was interrupted and did not complete: the buyer must act outside "
                        + "the app (a payment method, new terms). It is kept as \(interrupted.id): run "
                        + "'iapsim resolve \(interrupted.id)', and a new transaction arrives through Transaction.updates."
                ])
        case .cancelled:
            return Report(
                status: .cancelled,
                json: .object([
                    ("result", .string("cancelled")), ("productID", .string(productID)),
                    ("error", .error(SimulatedError.paymentCancelled)),
                ]),
                notes: ["Cancelled: nothing was charged."])
        case .failed(let error):
            var report = Report(
                status: Self.status(of: error),
                json: .object([
                    ("result", .string("failed")), ("productID", .string(productID)), ("error", .error(error)),
                ]))
            if error.kind == .notAllowed {
                report.errors = [
                    "Error: In-App Purchases are not allowed on this device. (\(error.qualifiedName); 'iapsim settings set payments-allowed true' allows them)"
                ]
            } else {
                let code = error.code.map { " (\($0))" } ?? ""
                report.errors = [
                    "Error: the purchase of \(what) failed with \(error.qualifiedName)\(code); nothing was charged"
                ]
            }
            return report
        }
    }

    static func status(of error: SimulatedError) -> ExitCode {
        switch error.kind {
        case .cancelled: .cancelled
        case .notAllowed: .notAllowed
        case .notAvailable: .notAvailable
        case .failed: .purchaseFailed
        }
    }
}

extension PurchaseWords {
    /// "promotional offer", "offer code", "win-back offer", "introductory offer".
    static func offerName(_ type: IAPSimKit.Transaction.OfferType) -> String {
        switch type {
        case .introductory: "introductory offer"
        case .promotional: "promotional offer"
        case .code: "offer code"
        case .winBack: "win-back offer"
        }
    }

    /// `{type, id, paymentMode, period, periodCount, price}`.
    static func offerJSON(_ offer: AppliedOffer) -> JSON {
        .object([
            ("type", .string(offer.type.rawValue)), ("id", .optional(offer.offer.id)),
            ("paymentMode", .string(offer.offer.paymentMode.rawValue)), ("period", .string(offer.offer.period.iso8601)),
            ("periodCount", .int(offer.offer.periodCount)), ("price", .string(offer.offer.price.plainString)),
        ])
    }
}
