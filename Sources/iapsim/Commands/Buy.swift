import Foundation
import IAPSimKit

struct Buy: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "buy", abstract: "Buy a product: purchased, cancelled, pending or failed.",
        synopsis:
            "<product-id> [--quantity N] [--yes] [--outcome OUTCOME | --outside-app] [--offer ID [--offer-signature SIG]] [--billing-plan PLAN] [--app-account-token UUID] [--as-family-member]",
        discussion: """
            A consumable adds N to its balance; a non-consumable becomes owned, and buying it
            again is a free re-download; an auto-renewable subscription is active for one period
            (or its introductory offer) and renews as the clock passes; a higher level of its
            group replaces the current one at once, a lower one at the next renewal; a
            non-renewing subscription is owned.
            On a terminal it first asks "Buy “Title” for $0.99? [y/N]"; no is a cancel (exit 2).
            With --yes, or when stdin is not a terminal, it does not ask.
            The session settings (Ask to Buy, interrupted purchases, error.purchase,
            payments-allowed) decide how it ends; --outcome overrides them for this purchase:
            success, cancel (2), fail or fail=ERROR (1, or 2/4/5 by the error), ask-to-buy (3),
            interrupted (6). An identifier the store lacks exits 5.
            Ask to Buy keeps one request per product: asking again for a product that is
            waiting starts its 24 hours again, and a request nobody answers in 24 hours of
            simulated time expires, declined. An interrupted purchase does not complete (exit
            6; StoreKit 1 sees a failed transaction): 'iapsim resolve ID' completes it as a new
            transaction, which the app's next launch receives through Transaction.updates.
            --outside-app is SKTestSession.buyProduct(identifier:): a purchase made on another
            device or in the App Store, with no prompt and none of the app's settings; the app's
            next launch (list, buy, restore, status) notes that Transaction.updates delivered it.
            --offer redeems a promotional offer (for current and lapsed subscribers of the group;
            with --offer-signature, checked against the .storekit file's subscriptionOffersKeyPair,
            and required when it has one: each nonce redeems once, and a timestamp must be
            within the last 24 hours and at most 60 seconds ahead) or a win-back offer (lapsed
            subscribers); a current subscriber's offer starts at the next renewal. StoreKit's
            refusals fail with exit 1: invalidOfferIdentifier, ineligibleForOffer,
            missingOfferParameters, invalidOfferSignature.
            --billing-plan monthly pays a format-5 subscription month by month within its
            commitment (billingPlans), which auto-renew off does not shorten.
            --app-account-token UUID is Product.PurchaseOption.appAccountToken: the transaction,
            its renewals and a purchase left pending carry it, lowercased; anything but a UUID
            exits 64. --as-family-member records the family organiser's purchase shared with
            this account (ownershipType familyShared, FAMILY_SHARED when signed), charging this
            account nothing, and notified as Apple notifies a member's access: ONE_TIME_CHARGE
            for a non-consumable, SUBSCRIBED for a subscription; a product the catalog does not
            mark familyShareable, or a consumable, exits 5. 'iapsim family revoke ID' stops the
            sharing.
            """,
        arguments: [.init("product-id", kind: .productID)],
        options: [
            OptionSpec(
                name: "quantity", valueName: "N", help: "How many of a consumable to buy, 1–10 (default 1).",
                values: PurchaseQuantity.range.map(String.init)),
            OptionSpec(
                name: "outcome", valueName: "OUTCOME",
                help: "Force this purchase's end: success, cancel, fail[=ERROR], ask-to-buy, interrupted.",
                values: ["success", "cancel", "fail", "ask-to-buy", "interrupted"]
                    + SimulatedError.all.filter(StoreKitTestAPI.purchase.allows).map { "fail=" + $0.qualifiedName }),
            OptionSpec(
                name: "billing-plan", valueName: "PLAN",
                help: "How a subscription is paid: upfront (the default), or monthly within its commitment.",
                values: ["monthly", "upfront"]),
            OptionSpec(
                name: "offer", valueName: "OFFER_ID",
                help: "Redeem a promotional or win-back offer of the subscription (its offerID)."),
            OptionSpec(
                name: "offer-signature", valueName: "SIG",
                help: "The promotional offer's signature, KEY_ID:NONCE:TIMESTAMP:SIGNATURE (iapsim offer-signature)."),
            .appAccountToken,
            OptionSpec(
                name: "as-family-member",
                help: "The family organiser buys a familyShareable product and shares it; nothing is charged here."),
            OptionSpec(
                name: "outside-app",
                help: "A purchase made outside the app (another device, the App Store): no prompt; "
                    + "Transaction.updates delivers it at the app's next launch."),
            .yes,
        ],
        examples: [
            "iapsim buy Demo.TechoverInAppPurchase.co.Apple.Book",
            "iapsim buy com.example.app.coins100 --quantity 3 --yes",
            "iapsim buy com.example.app.book --outcome fail=networkError",
            "iapsim buy com.example.app.pro.monthly --offer pro.monthly.comeback --yes",
            "iapsim buy com.example.app.pro.monthly --outcome ask-to-buy --json",
            "iapsim buy com.example.app.gems500 --outside-app && iapsim status",
            "iapsim buy com.example.app.book --app-account-token 0E8F4F4A-5A3B-4C8E-9D1E-2F3A4B5C6D7E --json",
            "iapsim buy com.example.app.book --as-family-member",
        ])

    /// The purchase, validated by the library (`PurchaseRequest`).
    let request: PurchaseRequest
    let assumeYes: Bool
    /// `SKTestSession.buyProduct(identifier:)`: bought on another device, no prompt.
    let outsideApp: Bool

    var productID: String { request.productID }

    /// A purchase through the payment sheet (`redeem-offer-code` makes one too).
    init(request: PurchaseRequest, assumeYes: Bool) {
        self.request = request
        self.assumeYes = assumeYes
        outsideApp = false
    }

    init(_ words: ParsedWords) throws(UsageError) {
        let productID = try words.only("product-id")
        assumeYes = words.flag("yes")
        outsideApp = words.flag("outside-app")
        if outsideApp {
            try words.refuse(
                ["outcome", "yes", "offer"], with: "--outside-app",
                because: ": a purchase made outside the app has no prompt and completes")
        }
        let token: UUID?
        do throws(PurchaseRequestError) {
            token = try words.value("app-account-token").map(UUID.init(appAccountToken:))
        } catch {
            throw words.error(error.errorDescription ?? "\(error)")
        }
        var offer: OfferRequest?
        if let id = words.value("offer") {
            do {
                offer = .offer(
                    id: id, signature: try words.value("offer-signature").map(PromotionalOfferSignature.init(text:)),
                    appAccountToken: token)
            } catch {
                throw words.error("--offer-signature \(error.localizedDescription)")
            }
        } else if words.value("offer-signature") != nil {
            throw words.error("--offer-signature goes with --offer OFFER_ID")
        }
        do throws(PurchaseRequestError) {
            request = try PurchaseRequest(
                productID: productID, quantity: try words.value("quantity").map(PurchaseQuantity.init(text:)) ?? .one,
                outcome: try words.value("outcome").map(StoreSession.Outcome.init(text:)), offer: offer,
                appAccountToken: token, isFamilyMember: words.flag("as-family-member"),
                billingPlan: try words.value("billing-plan").map(BillingPlanType.init(text:)) ?? .billedUpfront)
        } catch {
            throw words.error(error.errorDescription ?? "\(error)")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        if request.isFamilyMember { return try shareFromFamily(in: context) }
        if outsideApp { return try buyOutsideApp(in: context) }
        let (catalog, session) = try context.catalogAndSession()
        let quote = try session.quote(request, in: catalog)
        var words = PurchaseWords(quote: quote, presenter: try context.presenter(catalog, settings: quote.settings))
        // SKPaymentQueue.canMakePayments() is checked before the buyer is asked anything.
        if quote.canMakePayments, let question = words.question, !context.confirm(question, assumeYes: assumeYes) {
            return words.report(.cancelled)
        }
        let receipt = try session.purchase(quote, in: catalog)
        words.context = receipt.storeKitContext
        var report = words.report(receipt.result, balance: receipt.balance)
        report.notes += CommandContext.unfinishedNote(
            receipt.unfinishedTransactionIDs.filter { $0 != receipt.result.transaction?.id })
        if let error = receipt.verificationError {
            // StoreKit 2's purchase() returns .success(.unverified(_, error)): the app must
            // not grant it (Apple, "Verifying transactions").
            report.status = .purchaseFailed
            report.addJSON("verification", JSON.unverified(error))
            // What the app can do next depends on what it bought: a consumable is never restored.
            let next =
                receipt.result.transaction?.productType == .consumable
                ? "once 'settings set error.verification none', the app's next launch gets it again through "
                    + "Transaction.updates, verified: 'iapsim finish \(receipt.result.transaction?.id ?? 0)' grants and "
                    + "finishes it"
                : "'iapsim restore' grants it once 'settings set error.verification none'"
            report.errors.append(
                "Error: the transaction arrived unverified (\(error.qualifiedName), simulated): the app grants nothing "
                    + "and leaves it unfinished; \(next).")
        }
        return report
    }
}

extension Buy {
    /// `--as-family-member`: the family organiser's purchase, shared with this account (Apple,
    /// "Supporting Family Sharing in your app"). Nothing is asked: nothing is charged.
    private func shareFromFamily(in context: CommandContext) throws -> Report {
        let (catalog, session) = try context.catalogAndSession()
        let transaction = try session.shareFromFamily(request, in: catalog)
        let storeKit = try session.storeKitContext()
        return Report(
            json: .object([
                ("result", .string("familyShared")), ("productID", .string(productID)),
                ("transaction", .transaction(transaction, storeKit)),
            ]),
            lines: [
                "The family organiser shared \(productID) with this account: transaction \(transaction.id), "
                    + "ownershipType familyShared; nothing was charged to this account. "
                    + "Transaction.updates delivers it at the app's next launch."
            ])
    }

    /// `--outside-app`: `SKTestSession.buyProduct(identifier:)`.
    private func buyOutsideApp(in context: CommandContext) throws -> Report {
        let (catalog, session) = try context.catalogAndSession()
        let storeKit = try session.storeKitContext()
        let result = try session.purchaseOutsideApp(productID, quantity: request.quantity, in: catalog)
        let presenter = try context.presenter(catalog, settings: try session.settings())
        switch result {
        case .purchased(let transaction):
            let title = catalog.product(productID).map(presenter.title) ?? productID
            let what = request.quantity == .one ? "“\(title)”" : "\(request.quantity.value) × “\(title)”"
            return Report(
                json: .object([
                    ("result", .string("purchased")), ("productID", .string(productID)), ("outsideApp", .bool(true)),
                    ("alreadyOwned", .bool(false)),
                    ("displayPrice", .string(presenter.displayPrice(transaction.price))),
                    ("transaction", .transaction(transaction, storeKit)),
                ]),
                lines: [
                    "Purchased \(what) outside the app for \(presenter.displayPrice(transaction.price)). "
                        + "Transaction \(transaction.id); Transaction.updates delivers it at the app's next launch."
                ])
        case .redownloaded(let owned), .alreadySubscribed(let owned):
            return Report(
                json: .object([
                    ("result", .string("purchased")), ("productID", .string(productID)), ("outsideApp", .bool(true)),
                    ("alreadyOwned", .bool(true)), ("transaction", .transaction(owned, storeKit)),
                ]),
                lines: ["The account already has \(productID) (transaction \(owned.id)); nothing was charged."])
        case .downgradeScheduled(let current, let next):
            return Report(
                json: .object([
                    ("result", .string("scheduled")), ("productID", .string(next)), ("outsideApp", .bool(true)),
                    ("effectiveDate", .date(current.expirationDate)),
                    ("currentTransaction", .transaction(current, storeKit)),
                ]),
                lines: ["\(next) will replace \(current.productID) at the next renewal. Nothing was charged now."])
        case .pending, .requestRepeated, .interrupted, .offerScheduled, .cancelled, .failed:
            // A purchase made outside the app has completed by the time the simulator hears of it.
            throw UnexpectedResult(detail: "a purchase outside the app ended as \(result)")
        }
    }
}
