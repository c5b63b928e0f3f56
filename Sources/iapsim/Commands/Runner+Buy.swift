import Foundation
import IAPSimKit

extension Runner {
    /// `buy`: quote, confirm on a terminal, then pay, as the seed app's "Buy now" flow does;
    /// the session's settings or `--outcome` decide how it ends.
    /// - Parameter appAccountToken: `Product.PurchaseOption.appAccountToken`, lowercased.
    func buy(
        _ productID: String, quantity: Int, assumeYes: Bool, outcome: StoreSession.Outcome?, offer: OfferRequest? = nil,
        appAccountToken: String? = nil, monthlyBilling: Bool = false
    ) throws -> Report {
        let (catalog, session) = try catalogAndSession()
        let request = try PurchaseRequest(
            productID: productID, quantity: try PurchaseQuantity(quantity), outcome: outcome, offer: offer,
            appAccountToken: try appAccountToken.map { text throws(PurchaseRequestError) in
                try UUID(appAccountToken: text)
            },
            billingPlan: monthlyBilling ? .monthly : .billedUpfront)
        let quote = try session.quote(request, in: catalog)
        var words = PurchaseWords(quote: quote, presenter: try presenter(catalog, settings: quote.settings))
        // SKPaymentQueue.canMakePayments() is checked before the buyer is asked anything.
        if quote.canMakePayments, let question = words.question, !confirm(question, assumeYes: assumeYes) {
            return words.report(.cancelled)
        }
        let receipt = try session.purchase(quote, in: catalog)
        words.context = receipt.storeKitContext
        var report = words.report(receipt.result, balance: receipt.balance)
        report.notes += Self.unfinishedNote(
            receipt.unfinishedTransactionIDs.filter { $0 != receipt.result.transaction?.id })
        if let error = receipt.verificationError {
            // StoreKit 2's purchase() returns .success(.unverified(_, error)): the app must
            // not grant it (Apple, "Verifying transactions").
            report.status = .purchaseFailed
            report.addJSON("verification", Self.unverified(error))
            report.errors.append(
                "Error: the transaction arrived unverified (\(error.qualifiedName), simulated): the app grants nothing "
                    + "and leaves it unfinished; 'iapsim restore' grants it once 'settings set error.verification none'.")
        }
        return report
    }

    /// `buy --as-family-member`: the family organiser's purchase, shared with this account
    /// (Apple, "Supporting Family Sharing in your app"). Nothing is asked: nothing is charged.
    func buyAsFamilyMember(_ productID: String, appAccountToken: String?) throws -> Report {
        let (catalog, session) = try catalogAndSession()
        let request = try PurchaseRequest(
            productID: productID,
            appAccountToken: try appAccountToken.map { text throws(PurchaseRequestError) in
                try UUID(appAccountToken: text)
            },
            isFamilyMember: true)
        let transaction = try session.shareFromFamily(request, in: catalog)
        let context = try session.storeKitContext()
        return Report(
            json: .object([
                ("result", .string("familyShared")), ("productID", .string(productID)),
                ("transaction", .transaction(transaction, context)),
            ]),
            lines: [
                "The family organiser shared \(productID) with this account: transaction \(transaction.id), "
                    + "ownershipType familyShared; nothing was charged to this account. "
                    + "Transaction.updates delivers it at the app's next launch."
            ])
    }
}

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
                    [.line("You've already purchased this. It will be restored for free: \(what), transaction \(transaction.id).")]
                }
            case .alreadySubscribed:
                report.text = { [.line("You're currently subscribed to \(what)\(until). Nothing was charged.")] }
            default:
                if product.type == .autoRenewable {
                    let offer = transaction.offerType.map { type in
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
                    ("effectiveDate", .date(current.expirationDate)), ("currentTransaction", .transaction(current, context)),
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
                lines: ["\(what) will replace \(current.productID) at the next renewal, \(when). Nothing was charged now."])
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

extension Runner {
    /// `{"result": "unverified", "error": …}`: a `VerificationResult` that failed.
    static func unverified(_ error: SimulatedError) -> JSON {
        .object([("result", .string("unverified")), ("error", .error(error))])
    }
}

extension Runner {
    /// `offer-signature`: signs a promotional offer with the catalog's
    /// `subscriptionOffersKeyPair`, as a developer's server signs one.
    func offerSignature(
        _ productID: String, offerID: String, nonce: UUID?, timestamp: Int64?, appAccountToken: String? = nil
    ) throws -> Report {
        let (catalog, session) = try catalogAndSession()
        guard let key = catalog.store.offerSigningKey else {
            throw UsageError(
                "\(catalog.source.storeKitPath): no subscriptionOffersKeyPair to sign with (Xcode adds one when "
                    + "promotional offer signing is set up)", command: .offerSignature)
        }
        let product = try catalog.purchasableProduct(productID)
        guard product.subscription?.promotionalOffers.contains(where: { $0.id == offerID }) == true else {
            throw UsageError("\(offerID): not a promotional offer of \(productID)", command: .offerSignature)
        }
        let time = timestamp ?? Int64((context.now().timeIntervalSince1970 * 1000).rounded(.down))
        let signature: PromotionalOfferSignature
        do {
            signature = try PromotionalOfferSignature.sign(
                with: key, bundleID: try session.settings().bundleID, productID: productID, offerID: offerID,
                appAccountToken: appAccountToken, nonce: nonce ?? UUID(), timestamp: time)
        } catch {
            throw UsageError("\(catalog.source.storeKitPath): \(error.localizedDescription)", command: .offerSignature)
        }
        return Report(
            json: .object([
                ("keyIdentifier", .string(signature.keyID)), ("nonce", .string(signature.nonce)),
                ("timestamp", .int(signature.timestamp)), ("signature", .string(signature.signature)),
                ("offerSignature", .string(signature.text)),
            ]),
            lines: [signature.text])
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
