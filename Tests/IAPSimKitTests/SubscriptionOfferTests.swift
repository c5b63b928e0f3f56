import Foundation
import IAPSimCrypto
import IAPSimTestSupport
import Testing

@testable import IAPSimKit

/// Promotional, win-back and offer-code redemptions on the bundled catalog's Pro monthly
/// subscription (a promotional offer `pro.monthly.comeback`: three months at $0.99; an offer
/// code `pro.winter`: a free month for anyone; a win-back offer `pro.monthly.winback`: a free
/// month, eligible in the file), under Apple's eligibility rules.
@Suite struct SubscriptionOfferTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession
    let monthly = "com.example.app.pro.monthly"

    init() throws {
        catalog = try Catalog.load(
            CatalogSource(
                storeKitPath: Support.repositoryRoot + "/catalog/Products.storekit",
                productIDsPath: Support.repositoryRoot + "/catalog/IAPProductIDs.plist"))
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalog: catalog)
    }

    private func buy(_ offer: OfferRequest? = nil) throws -> StoreSession.PurchaseResult {
        let request = try PurchaseRequest(productID: monthly, offer: offer)
        return try session.purchase(try session.quote(request, in: catalog), in: catalog).result
    }

    /// Subscribes (the free week), turns auto-renew off and lets it lapse.
    private func lapse() throws {
        _ = try buy()
        _ = try session.cancelSubscription(monthly)
        clock.advance(days: 10)
    }

    private func kinds() throws -> [String] {
        try session.notifications().map {
            $0.notification.kind.rawValue + ($0.notification.subtype.map { "/" + $0.rawValue } ?? "")
        }
    }

    /// Apple, "Implementing promotional offers in your app": for current and lapsed
    /// subscribers of the group only.
    @Test func aPromotionalOfferIsForThoseWhoSubscribedBefore() throws {
        #expect(try buy(.offer(id: "pro.monthly.comeback", signature: nil)) == .failed(.purchase(.ineligibleForOffer)))
        #expect(try session.store.transactions().isEmpty)
        try lapse()
        guard case .purchased(let transaction) = try buy(.offer(id: "pro.monthly.comeback", signature: nil)) else {
            Issue.record("expected the promotional offer to be bought")
            return
        }
        #expect(transaction.offerType == .promotional && transaction.offerID == "pro.monthly.comeback")
        #expect(transaction.price == Decimal(string: "0.99") && transaction.offerPaymentMode == .payAsYouGo)
        // Pay as you go: the next two renewals at the offer's price, then the regular one.
        clock.advance(days: 95)
        _ = try session.status()  // time brought up to date
        let renewals = try session.store.transactions().filter { $0.id > transaction.id }.map(\.price)
        #expect(renewals == [Decimal(string: "0.99"), Decimal(string: "0.99"), Decimal(string: "2.99")])
        // A lapsed subscriber subscribed again: SUBSCRIBED / RESUBSCRIBE, not OFFER_REDEEMED.
        #expect(try kinds().contains("SUBSCRIBED/RESUBSCRIBE") && !kinds().contains("OFFER_REDEEMED/RESUBSCRIBE"))
    }

    /// A nonce was one-time per customer: the signature one customer redeemed, another could
    /// redeem again. Nonces are the app server's, used once for the app.
    @Test func aNonceIsSpentForTheWholeApp() throws {
        var catalog = self.catalog
        let key = OfferSigningKey(
            id: "TESTONLY", privateKey: Data(try P256PrivateKey.generate().derRepresentation).base64EncodedString())
        catalog.store.offerSigningKey = key
        let bob = session.forAccount("bob")
        for customer in [session, bob] {
            _ = try customer.purchase(
                try customer.quote(try PurchaseRequest(productID: monthly), in: catalog), in: catalog)
            _ = try customer.cancelSubscription(monthly)
        }
        clock.advance(days: 10)
        let signature = try PromotionalOfferSignature.sign(
            with: key, bundleID: "com.example.app", productID: monthly, offerID: "pro.monthly.comeback",
            appAccountToken: nil, nonce: UUID(),
            timestamp: Int64((clock.now.timeIntervalSince1970 * 1000).rounded(.down)))
        func redeem(_ customer: StoreSession) throws -> StoreSession.PurchaseResult {
            let offer = OfferRequest.offer(id: "pro.monthly.comeback", signature: signature)
            return try customer.purchase(
                try customer.quote(PurchaseRequest(productID: monthly, offer: offer), in: catalog), in: catalog
            ).result
        }
        let redeemed = try redeem(session)
        guard case .purchased = redeemed else {
            Issue.record("expected default to redeem the offer, got \(redeemed)")
            return
        }
        #expect(try redeem(bob) == .failed(.purchase(.invalidOfferSignature)), "another customer, the same nonce")
        #expect(try bob.store.read().simulation.usedOfferNonces.map(\.nonce) == [signature.nonce])
    }

    /// A signature could be redeemed again and again, and one dated up to 24 hours ahead was
    /// accepted. Apple: a nonce is used once, and the timestamp is when the server signed.
    @Test func aSignatureIsRedeemedOnceAndNotFromTheFuture() throws {
        var catalog = self.catalog
        let key = OfferSigningKey(
            id: "TESTONLY", privateKey: Data(try P256PrivateKey.generate().derRepresentation).base64EncodedString())
        catalog.store.offerSigningKey = key
        func sign(_ nonce: UUID = UUID(), ahead seconds: Double = 0) throws -> PromotionalOfferSignature {
            try PromotionalOfferSignature.sign(
                with: key, bundleID: "com.example.app", productID: monthly, offerID: "pro.monthly.comeback",
                appAccountToken: nil, nonce: nonce,
                timestamp: Int64(((clock.now.timeIntervalSince1970 + seconds) * 1000).rounded(.down)))
        }
        func buy(_ signature: PromotionalOfferSignature) throws -> StoreSession.PurchaseResult {
            let offer = OfferRequest.offer(id: "pro.monthly.comeback", signature: signature)
            return try session.purchase(
                try session.quote(PurchaseRequest(productID: monthly, offer: offer), in: catalog), in: catalog
            ).result
        }
        try lapse()
        let first = try sign()
        guard case .purchased = try buy(first) else {
            Issue.record("expected the offer to be bought")
            return
        }
        #expect(try buy(first) == .failed(.purchase(.invalidOfferSignature)), "the same nonce again")
        let again = try sign()
        guard case .offerScheduled = try buy(again) else {
            Issue.record("a new nonce is accepted")
            return
        }
        #expect(try buy(try sign(ahead: 120)) == .failed(.purchase(.invalidOfferSignature)), "two minutes ahead")
        #expect(try buy(try sign(ahead: 24 * 3600)) == .failed(.purchase(.invalidOfferSignature)), "a day ahead")
        guard case .offerScheduled = try buy(try sign(ahead: 30)) else {
            Issue.record("half a minute ahead is within the skew")
            return
        }
        // The nonces are in the state, and outlive the process.
        let stored = try session.store.read().simulation.usedOfferNonces.map(\.nonce)
        #expect(stored.count == 3 && stored.prefix(2) == [first.nonce, again.nonce])
        let other = StoreSession(store: StateStore(location: session.store.location), now: { [clock] in clock.now })
        let replay = OfferRequest.offer(id: "pro.monthly.comeback", signature: again)
        #expect(
            try other.purchase(
                try other.quote(PurchaseRequest(productID: monthly, offer: replay), in: catalog), in: catalog
            ).result
                == .failed(.purchase(.invalidOfferSignature)))
        // A day later, the first nonces are forgotten as a new one is recorded: they are too old
        // to be accepted anyway.
        clock.advance(days: 2)
        _ = try buy(try sign())
        #expect(try session.store.read().simulation.usedOfferNonces.count == 1)
    }

    @Test func anUnknownOfferIsInvalidOfferIdentifier() throws {
        #expect(try buy(.offer(id: "no.such.offer", signature: nil)) == .failed(.purchase(.invalidOfferIdentifier)))
        #expect(try buy(.code(id: "NOSUCHCODE")) == .failed(.purchase(.invalidOfferIdentifier)))
    }

    /// Apple, "Supporting win-back offers in your app": for lapsed subscribers; the `.storekit`
    /// file's switch decides eligibility in local testing. `status` lists the eligible ones.
    @Test func aWinBackOfferIsForLapsedSubscribers() throws {
        _ = try buy()
        #expect(try buy(.offer(id: "pro.monthly.winback", signature: nil)) == .failed(.purchase(.ineligibleForOffer)))
        _ = try session.cancelSubscription(monthly)
        clock.advance(days: 10)
        let status = try #require(try session.status().subscriptions.first)
        #expect(
            session.eligibleWinBackOfferIDs(for: status, among: [status]) == ["pro.monthly.winback"])
        guard case .purchased(let transaction) = try buy(.offer(id: "pro.monthly.winback", signature: nil)) else {
            Issue.record("expected the win-back offer to be bought")
            return
        }
        #expect(transaction.offerType == .winBack && transaction.price == 0)
        #expect(
            transaction.expirationDate
                == Calendar(identifier: .gregorian).date(byAdding: .month, value: 1, to: transaction.purchaseDate))
    }

    /// Apple, "Supporting offer codes in your app": an existing subscriber's code starts at the
    /// next renewal; a new customer's at once.
    @Test func anOfferCodeStartsNowForANewCustomerAndAtRenewalForASubscriber() throws {
        guard case .purchased(let first) = try buy(.code(id: "pro.winter")) else {
            Issue.record("expected the code to be redeemed")
            return
        }
        // Not stackable: the code replaces the free week.
        #expect(first.offerType == .code && first.offerID == "pro.winter" && first.price == 0)
        guard case .offerScheduled(let current, let offer) = try buy(.code(id: "pro.winter")) else {
            Issue.record("expected the code to wait for the next renewal")
            return
        }
        #expect(current.id == first.id && offer.type == .code)
        let info = try #require(try session.snapshot().state.simulation.renewals.first)
        #expect(info.pendingOffer?.id == "pro.winter")
        clock.advance(days: 32)
        _ = try session.status()
        let renewal = try #require(try session.store.transactions().first { $0.id > first.id })
        #expect(renewal.offerType == .code && renewal.price == 0 && renewal.reason == .renewal)
        #expect(try kinds().contains("OFFER_REDEEMED"))
    }

    @Test func theOfferCodeSheetFailsWithItsSimulatedError() throws {
        _ = try session.setSetting(.offerCodeRedeemError, to: "networkError")
        #expect(throws: SimulationError.self) {
            try session.quote(PurchaseRequest(productID: monthly, offer: .code(id: "pro.winter")), in: catalog)
        }
    }

    /// `offer-signature`'s rules live in the library: a catalog without a key pair and an offer
    /// the product does not have are refused, naming them; a signature verifies for its buyer.
    @Test func theSessionSignsOnlyTheProductsPromotionalOffers() throws {
        #expect(throws: OfferSignatureError.noKeyPair(path: catalog.source.storeKitPath)) {
            try session.signPromotionalOffer(
                productID: monthly, offerID: "pro.monthly.comeback", appAccountToken: nil, nonce: UUID(),
                timestamp: nil, in: catalog)
        }
        var keyed = catalog
        let key = OfferSigningKey(
            id: "TESTONLY", privateKey: Data(try P256PrivateKey.generate().derRepresentation).base64EncodedString())
        keyed.store.offerSigningKey = key
        #expect(throws: OfferSignatureError.notAPromotionalOffer(offerID: "pro.winter", productID: monthly)) {
            try session.signPromotionalOffer(
                productID: monthly, offerID: "pro.winter", appAccountToken: nil, nonce: UUID(), timestamp: 1,
                in: keyed)
        }
        let token = UUID()
        let signature = try session.signPromotionalOffer(
            productID: monthly, offerID: "pro.monthly.comeback", appAccountToken: token, nonce: UUID(),
            timestamp: 1_800_000_000_000, in: keyed)
        #expect(signature.timestamp == 1_800_000_000_000)
        #expect(
            try signature.isValid(
                for: key, bundleID: try session.settings().bundleID, productID: monthly,
                offerID: "pro.monthly.comeback", appAccountToken: token.uuidString))
    }

    /// Apple, "Generating a signature for promotional offers": the payload's parts joined by
    /// U+2063; iapsim's signer and checker agree, and any other offer or token fails.
    @Test func aPromotionalOfferSignatureCoversTheOfferAndTheBuyer() throws {
        let key = OfferSigningKey(
            id: "TESTONLY", privateKey: Data(try P256PrivateKey.generate().derRepresentation).base64EncodedString())
        let nonce = UUID()
        let signature = try PromotionalOfferSignature.sign(
            with: key, bundleID: "com.example.app", productID: monthly, offerID: "pro.monthly.comeback",
            appAccountToken: "ABC", nonce: nonce, timestamp: 1_800_000_000_000)
        #expect(try PromotionalOfferSignature(text: signature.text) == signature)
        #expect(
            try signature.isValid(
                for: key, bundleID: "com.example.app", productID: monthly, offerID: "pro.monthly.comeback",
                appAccountToken: "abc"))
        #expect(
            try !signature.isValid(
                for: key, bundleID: "com.example.app", productID: monthly, offerID: "other", appAccountToken: "abc"))
        #expect(
            try !signature.isValid(
                for: key, bundleID: "com.example.app", productID: monthly, offerID: "pro.monthly.comeback",
                appAccountToken: nil))
        #expect(throws: OfferSignatureError.self) { try PromotionalOfferSignature(text: "K:not-a-uuid:1:AAAA") }
        #expect(throws: OfferSignatureError.unusableKey(keyID: "X")) {
            try OfferSigningKey(id: "X", privateKey: "REDACTED").privateKey()
        }
    }
}

/// Format 5's billing plans, on the real file that carries one: a yearly subscription paid
/// monthly within its twelve-month commitment.
@Suite struct BillingPlanTests {
    @Test func aMonthlyPlanBillsTwelveTimesAndOwesThemWithAutoRenewOff() throws {
        let path = try External.corpus() + "/storekit/revenuecat-unit-tests.storekit"
        let catalog = try Catalog.load(CatalogSource(storeKitPath: path, productIDsPath: nil))
        let clock = Support.Clock()
        let session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
        let id = "com.revenuecat.annual_with_commitment"
        let plan = try #require(catalog.product(id)?.subscription?.monthlyPlan)
        #expect(plan.price == Decimal(string: "0.5") && plan.commitmentPrice == 6)
        let quote = try session.quote(PurchaseRequest(productID: id, billingPlan: .monthly), in: catalog)
        #expect(quote.price == Decimal(string: "0.5"))
        guard case .purchased(let first) = try session.purchase(quote, in: catalog).result else {
            Issue.record("expected a purchase")
            return
        }
        #expect(first.billingPlanType == .monthly && first.price == Decimal(string: "0.5"))
        // Auto-renew off: the commitment's payments are still owed, then it ends.
        let change = try session.cancelSubscription(id)
        #expect(change.expirationDate ?? .distantPast > first.expirationDate ?? .distantFuture)
        clock.advance(days: 400)
        _ = try session.status()
        let payments = try session.store.transactions()
        #expect(payments.count == 12 && payments.allSatisfy { $0.price == Decimal(string: "0.5") })
        #expect(try session.status().subscriptions.first?.state == .expired)
        #expect(throws: PurchaseError.noMonthlyBillingPlan(productID: "com.revenuecat.annual_39.99_no_trial")) {
            try session.quote(
                PurchaseRequest(productID: "com.revenuecat.annual_39.99_no_trial", billingPlan: .monthly), in: catalog)
        }
        // A plan is chosen when a subscription starts: not for an active one, nor with an offer.
        _ = try session.purchase(try session.quote(PurchaseRequest(productID: id), in: catalog), in: catalog)
        #expect(throws: PurchaseError.self) {
            try session.quote(PurchaseRequest(productID: id, billingPlan: .monthly), in: catalog)
        }
    }
}

/// Every offer in the real `.storekit` files can be redeemed on the path its type allows: a
/// promotional offer by a lapsed subscriber with a signature (made with a TEST ONLY key put in
/// place of the file's, whose key is redacted in these copies), an offer code by a customer
/// its eligibility names, a win-back offer by a lapsed subscriber when the file makes it
/// eligible.
@Suite struct CorpusOfferTests {
    @Test func everyOfferInTheCorpusIsRedeemable() throws {
        let root = try External.corpus()
        var redeemed = 0
        for folder in ["storekit", "storekit-extra"] {
            for name in try FileManager().contentsOfDirectory(atPath: root + "/" + folder).sorted()
            where name.hasSuffix(".storekit") {
                var catalog = try Catalog.load(
                    CatalogSource(storeKitPath: root + "/" + folder + "/" + name, productIDsPath: nil))
                let key = OfferSigningKey(
                    id: "TESTONLY",
                    privateKey: Data(try P256PrivateKey.generate().derRepresentation).base64EncodedString())
                catalog.store.offerSigningKey = key
                for product in catalog.products {
                    guard let subscription = product.subscription else { continue }
                    /// Who redeems it: a new customer, a lapsed subscriber, or a subscriber now.
                    enum Customer { case new, lapsed, subscriber }
                    var requests: [(OfferRequest, Customer)] = []
                    for offer in subscription.promotionalOffers {
                        let id = try #require(offer.id, "\(name): a promotional offer without offerID")
                        let signature = try PromotionalOfferSignature.sign(
                            with: key, bundleID: "com.example.app", productID: product.id, offerID: id,
                            appAccountToken: nil, nonce: UUID(), timestamp: Int64(Date().timeIntervalSince1970 * 1000))
                        requests.append((.offer(id: id, signature: signature), .lapsed))
                    }
                    for code in subscription.offerCodes {
                        let id = try #require(code.id, "\(name): an offer code without a name")
                        let customer: Customer =
                            code.eligibility.isEmpty || code.eligibility.contains(.new)
                            ? .new : code.eligibility.contains(.expired) ? .lapsed : .subscriber
                        requests.append((.code(id: id), customer))
                    }
                    for winBack in subscription.winBackOffers where winBack.isEligible {
                        requests.append((.offer(id: try #require(winBack.id), signature: nil), .lapsed))
                    }
                    for (request, customer) in requests {
                        let session = StoreSession(
                            store: Support.store(), now: { Date() }, catalogSettings: catalog.store.settings)
                        if customer != .new {
                            let quote = try session.quote(PurchaseRequest(productID: product.id), in: catalog)
                            _ = try session.purchase(quote, in: catalog)
                        }
                        if customer == .lapsed { _ = try session.expireSubscription(product.id) }
                        let result = try session.purchase(
                            try session.quote(PurchaseRequest(productID: product.id, offer: request), in: catalog),
                            in: catalog
                        ).result
                        switch result {
                        case .purchased(let transaction) where customer != .subscriber:
                            #expect(transaction.offerType != nil, "\(name) \(product.id) \(request)")
                            redeemed += 1
                        case .offerScheduled where customer == .subscriber:
                            redeemed += 1  // an existing subscriber's code: at the next renewal
                        default:
                            Issue.record("\(name) \(product.id) \(request) for \(customer): \(result)")
                        }
                    }
                }
            }
        }
        #expect(redeemed >= 10, "only \(redeemed) offers in the corpus")
    }
}
