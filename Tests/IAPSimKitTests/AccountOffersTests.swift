import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// A session over a fresh state on the fixture catalog, with a clock the test moves.
private struct Fixture {
    let catalog: Catalog
    let clock = Support.Clock()
    let events = Support.Events()
    let session: StoreSession

    init() throws {
        catalog = try Support.validCatalog()
        let clock = self.clock
        session = StoreSession(
            store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings,
            events: events.record)
    }

    func buy(_ id: String, quantity: PurchaseQuantity = 1) throws -> Transaction {
        let result = try session.buy(try catalog.purchasableProduct(id), quantity: quantity, in: catalog)
        return try #require(result.transaction)
    }

    /// Moves the clock, and brings the state up to it (renewals, expiries) as any command does.
    func advance(days: Double) throws {
        clock.advance(days: days)
        _ = try session.snapshot()
    }

    /// `TYPE/SUBTYPE` of every notification, oldest first.
    func notificationNames() throws -> [String] { try session.notifications().map(\.notification.name) }

    func renewal(_ originalID: UInt64) throws -> RenewalInfo {
        try #require(try session.store.read().simulation.renewals.first { $0.originalID == originalID })
    }
}

/// Price increases of auto-renewable subscriptions. Apple, "Managing Price Increases" (App
/// Store Connect Help) and "Testing a price increase" (Xcode): an increase that needs consent
/// applies only if the subscriber agrees, else the subscription expires at its renewal; one
/// that needs none applies at the next renewal. Apple's "notificationType": `PRICE_INCREASE`
/// with `PENDING` or `ACCEPTED`, and `EXPIRED` / `PRICE_INCREASE`.
@Suite struct PriceIncreaseTests {
    @Test func anIncreaseThatNeedsConsentIsPendingThenAppliesOnceAgreed() throws {
        let f = try Fixture()
        let first = try f.buy("fx.plus.monthly")
        let change = try f.session.increasePrice(
            "fx.plus.monthly", to: Decimal(string: "24.99")!, requiresConsent: true)
        #expect(change.priceIncreaseStatus == .pending)
        #expect(change.increase?.jwsStatus == 0)
        #expect(try f.notificationNames().last == "PRICE_INCREASE/PENDING")
        _ = try f.session.consentToPriceIncrease("fx.plus.monthly")
        #expect(try f.renewal(first.id).priceIncrease?.jwsStatus == 1)
        #expect(try f.notificationNames().last == "PRICE_INCREASE/ACCEPTED")
        try f.advance(days: 8)
        let renewed = try #require(try f.session.store.transactions().last)
        #expect(renewed.reason == .renewal)
        #expect(renewed.price == Decimal(string: "24.99"))
        #expect(try f.renewal(first.id).priceIncrease == nil)  // applied: none pending now
        #expect(try f.renewal(first.id).autoRenewPrice == Decimal(string: "24.99"))
    }

    @Test func noConsentByTheRenewalExpiresTheSubscriptionForThePriceIncrease() throws {
        let f = try Fixture()
        let first = try f.buy("fx.plus.monthly")
        _ = try f.session.increasePrice("fx.plus.monthly", to: 29, requiresConsent: true)
        try f.advance(days: 8)
        #expect(try f.session.store.transactions().count == 1)  // not renewed
        let status = try #require(try f.session.status().subscriptions.first)
        #expect(status.state == .expired)
        #expect(status.expirationReason == .didNotConsentToPriceIncrease)
        #expect(try f.notificationNames().last == "EXPIRED/PRICE_INCREASE")
        // JWS expirationIntent 3: "The customer didn't consent to an auto-renewable
        // subscription price increase" (Apple, "expirationIntent").
        #expect(SignedPayloads.expirationIntent(try f.renewal(first.id).expirationReason!) == 3)
    }

    @Test func declinedTheSubscriptionStaysToItsPeriodsEndThenExpires() throws {
        let f = try Fixture()
        _ = try f.buy("fx.plus.monthly")
        _ = try f.session.increasePrice("fx.plus.monthly", to: 29, requiresConsent: true)
        let declined = try f.session.declinePriceIncrease("fx.plus.monthly")
        #expect(!declined.info.willAutoRenew)
        #expect(try f.session.status().subscriptions.first?.state == .subscribed)
        try f.advance(days: 8)
        #expect(try f.session.status().subscriptions.first?.state == .expired)
        let expected = [
            "PRICE_INCREASE/PENDING", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/PRICE_INCREASE",
        ]
        #expect(try f.notificationNames().suffix(3) == expected)
    }

    @Test func anIncreaseWithoutConsentIsAcceptedAndAppliesAtTheNextRenewal() throws {
        let f = try Fixture()
        _ = try f.buy("fx.plus.monthly")
        let change = try f.session.increasePrice("fx.plus.monthly", to: 21, requiresConsent: false)
        #expect(change.priceIncreaseStatus == .agreed)
        #expect(try f.notificationNames().last == "PRICE_INCREASE/ACCEPTED")
        try f.advance(days: 8)
        #expect(try f.session.store.transactions().last?.price == 21)
    }

    @Test func onlyAnIncreaseOfARenewingSubscriptionIsAccepted() throws {
        let f = try Fixture()
        #expect(throws: SimulationError.notSubscribed(productID: "fx.plus.monthly")) {
            try f.session.increasePrice("fx.plus.monthly", to: 29, requiresConsent: true)
        }
        _ = try f.buy("fx.plus.monthly")
        #expect(throws: SimulationError.self) {
            try f.session.increasePrice("fx.plus.monthly", to: 1, requiresConsent: true)
        }
        #expect(throws: SimulationError.noPriceIncrease(productID: "fx.plus.monthly")) {
            try f.session.consentToPriceIncrease("fx.plus.monthly")
        }
    }

    /// `status`'s subscriptions, the status array's renewal info and the signed renewal info
    /// say one `priceIncreaseStatus` at every step: they read it from `RenewalInfo.facts`.
    @Test func everyViewOfASubscriptionAgreesOnItsPriceIncreaseStatus() throws {
        let f = try Fixture()
        _ = try f.buy("fx.plus.monthly")
        func views() throws -> (subscription: String, renewalInfo: String?, jws: JSONValue?) {
            let status = try f.session.status()
            let subscription = try #require(status.subscriptions.first)
            let element = subscription.storeKitJSON(status.storeKitContext)
            let context = SigningContext(
                bundleID: "b", appAppleID: nil, environment: .sandbox, signedDate: f.clock.now, appTransactionID: "1")
            let signed = SignedPayloads.renewalInfo(
                subscription.renewalInfo, latest: subscription.transaction, state: subscription.state, context: context)
            guard case .object(let members) = signed else {
                return (subscription.priceIncreaseStatus.rawValue, nil, nil)
            }
            return (
                subscription.priceIncreaseStatus.rawValue,
                element["renewalInfo"]?["priceIncreaseStatus"]?.stringValue,
                members.first { $0.0 == "priceIncreaseStatus" }?.1
            )
        }
        _ = try f.session.increasePrice("fx.plus.monthly", to: 29, requiresConsent: true)
        #expect(try views() == ("pending", "pending", .int(0)))
        let declined = try f.session.declinePriceIncrease("fx.plus.monthly")
        #expect(declined.priceIncreaseStatus == .noIncreasePending)
        #expect(try views() == ("noIncreasePending", "noIncreasePending", nil))
        #expect(try f.session.status().subscriptions.first?.priceIncrease == nil)
        let agreed = try f.session.consentToPriceIncrease("fx.plus.monthly")
        #expect(agreed.priceIncreaseStatus == .agreed)
        #expect(try views() == ("agreed", "agreed", .int(1)))
        _ = try f.session.cancelSubscription("fx.plus.monthly")
        #expect(try views() == ("noIncreasePending", "noIncreasePending", nil))
    }

    @Test func theSignedRenewalInfoCarriesPriceIncreaseStatus() throws {
        let f = try Fixture()
        let first = try f.buy("fx.plus.monthly")
        _ = try f.session.increasePrice("fx.plus.monthly", to: 29, requiresConsent: true)
        let context = SigningContext(
            bundleID: "b", appAppleID: nil, environment: .sandbox, signedDate: f.clock.now, appTransactionID: "1")
        let payload = SignedPayloads.renewalInfo(
            try f.renewal(first.id), latest: first, state: .subscribed, context: context)
        guard case .object(let members) = payload else {
            Issue.record("not an object")
            return
        }
        #expect(members.first { $0.0 == "priceIncreaseStatus" }?.1 == .int(0))
    }
}

/// Refund requests: StoreKit's `Transaction.beginRefundRequest(in:)`; `CONSUMPTION_REQUEST`
/// for every product type (Apple, "ConsumptionRequest": "any type of product"), then `REFUND`, `REFUND_DECLINED`, or later `REFUND_REVERSED`; a second
/// request while one is pending fails with `Transaction.RefundRequestError.duplicateRequest`.
@Suite struct RefundRequestTests {
    @Test func aConsumableRequestAsksForConsumptionDataAndIsPendingUntilGranted() throws {
        let f = try Fixture()
        let coins = try f.buy("fx.coins", quantity: 2)
        let request = try f.session.requestRefund(coins.id, reason: .unintendedPurchase)
        #expect(request.transactionID == coins.id)
        #expect(try f.session.status().refundRequests == [request])
        let consumption = try #require(try f.session.notifications().last?.notification)
        #expect(consumption.kind == .consumptionRequest)
        #expect(consumption.consumptionRequestReason == .unintendedPurchase)
        #expect(throws: SimulationError.duplicateRefundRequest(id: coins.id)) {
            try f.session.requestRefund(coins.id, reason: nil)
        }
        let granted = try f.session.refundTransaction(coins.id, reason: .other)
        #expect(granted.request == request)
        #expect(granted.transaction.revocationDate != nil)
        #expect(try f.session.status().refundRequests.isEmpty)
        #expect(try f.notificationNames().last == "REFUND")
    }

    @Test func aNonConsumableRequestAsksForConsumptionDataToo() throws {
        let f = try Fixture()
        let levels = try f.buy("fx.levels")
        _ = try f.session.requestRefund(levels.id, reason: nil)
        #expect(try f.notificationNames().last == "CONSUMPTION_REQUEST")
    }

    @Test func aDeclinedRequestLeavesThePurchase() throws {
        let f = try Fixture()
        let first = try f.buy("fx.plus.monthly")
        _ = try f.session.requestRefund(first.id, reason: .other)
        let (_, transaction) = try f.session.declineRefund(first.id)
        #expect(transaction.revocationDate == nil)
        #expect(try f.session.status().isEntitled(to: "fx.plus.monthly"))
        #expect(try f.notificationNames().suffix(2) == ["CONSUMPTION_REQUEST", "REFUND_DECLINED"])
        #expect(throws: SimulationError.noRefundRequest(id: first.id)) { try f.session.declineRefund(first.id) }
    }

    @Test func aReversedRefundUndoesTheRevocationAndReinstatesTheContent() throws {
        let f = try Fixture()
        let levels = try f.buy("fx.levels")
        let coins = try f.buy("fx.coins", quantity: 3)
        _ = try f.session.refund(levels.id, reason: .other)
        _ = try f.session.refund(coins.id, reason: .other)
        #expect(throws: SimulationError.unknownTransaction(id: 99)) { try f.session.reverseRefund(99) }
        let reversed = try f.session.reverseRefund(levels.id)
        #expect(reversed.revocationDate == nil && reversed.revocationReason == nil)
        _ = try f.session.reverseRefund(coins.id)
        let status = try f.session.status()
        #expect(status.purchasedProductIdentifiers.contains("fx.levels"))
        #expect(status.consumables["fx.coins"] == 3)
        #expect(try f.notificationNames().suffix(2) == ["REFUND_REVERSED", "REFUND_REVERSED"])
        #expect(throws: SimulationError.notRefunded(id: levels.id)) { try f.session.reverseRefund(levels.id) }
    }

    @Test func aRefundRequestSurvivesAReadOfTheState() throws {
        let f = try Fixture()
        let coins = try f.buy("fx.coins")
        _ = try f.session.requestRefund(coins.id, reason: .legal)
        let text = try String(contentsOfFile: f.session.store.location.statePath, encoding: .utf8)
        #expect(text.contains("\"schemaVersion\": 5"))
        #expect(try f.session.store.read().simulation.refundRequests.first?.reason == .legal)
    }
}

/// `SKTestSession.buyProduct(identifier:)`: a purchase made outside the app, delivered through
/// `Transaction.updates` at the app's next launch, once.
@Suite struct OutsideAppPurchaseTests {
    @Test func itNeedsNoPromptAndReachesTheAppAtItsNextLaunch() throws {
        let f = try Fixture()
        // None of the app's own controls apply to a purchase made elsewhere.
        _ = try f.session.setSetting(.askToBuy, to: "true")
        _ = try f.session.setSetting(.paymentsAllowed, to: "false")
        guard case .purchased(let transaction) = try f.session.purchaseOutsideApp("fx.levels", in: f.catalog) else {
            Issue.record("the purchase outside the app did not complete")
            return
        }
        #expect(f.events.all.isEmpty)
        _ = try f.session.status(launchingTheApp: true)
        #expect(f.events.all == [.delivered(transaction)])
        _ = try f.session.status(launchingTheApp: true)
        #expect(f.events.all.count == 1)
        #expect(throws: PurchaseError.self) {
            try f.session.purchaseOutsideApp("fx.levels", quantity: 2, in: f.catalog)
        }
    }
}

/// A storefront change: `Storefront.updates` / `paymentQueueDidChangeStorefront(_:)`; the
/// transactions already made keep the storefront they were made in (`Transaction.storefront`).
@Suite struct StorefrontChangeTests {
    @Test func theChangeIsReportedAndEarlierPurchasesKeepTheirStorefront() throws {
        let f = try Fixture()
        let bought = try f.buy("fx.plus.monthly")
        #expect(bought.storefrontCountryCode == "USA")
        _ = try f.session.setSetting(.storefront, to: "JPN")
        #expect(f.events.all == [.storefrontChanged(from: "USA", to: "JPN")])
        _ = try f.session.setSetting(.storefront, to: "JPN")  // no change, no event
        #expect(f.events.all.count == 1)
        let japan = try Catalog.load(f.catalog.source, storefront: Storefront.named("JPN"))
        #expect(japan.product("fx.levels")?.price == 600)
        try f.advance(days: 8)
        let history = try f.session.store.transactions()
        #expect(history.map(\.storefrontCountryCode) == ["USA", "USA"])  // the renewal too
        #expect(history.map(\.currency) == ["USD", "USD"])
        _ = try f.session.resetSettings(.storefront)
        #expect(f.events.all.last == .storefrontChanged(from: "JPN", to: "USA"))
    }
}
