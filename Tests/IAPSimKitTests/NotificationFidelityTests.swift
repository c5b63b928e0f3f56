import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// Which notification each event raises, and what it carries, read against Apple's pages
/// ("notificationType", "subtype", "responseBodyV2DecodedPayload", "summary",
/// "JWSRenewalInfoDecodedPayload"). Everything runs on the bundled catalog: Pro monthly (level
/// 2, a free week, the promotional offer `pro.monthly.comeback`, the offer code `pro.winter`,
/// the win-back offer `pro.monthly.winback`), Pro yearly (level 1) and the family-shareable
/// book.
@Suite struct NotificationFidelityTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession
    let monthly = "com.example.app.pro.monthly"
    let yearly = "com.example.app.pro.yearly"

    /// One identity for the suite: making one generates a key.
    static let identity = try! SigningIdentity.loadOrCreate(in: Support.temporaryDirectory() + "/certs", lockTimeout: 5)

    init() throws {
        catalog = try Catalog.load(
            CatalogSource(
                storeKitPath: Support.repositoryRoot + "/catalog/Products.storekit",
                productIDsPath: Support.repositoryRoot + "/catalog/IAPProductIDs.plist"))
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalog: catalog)
    }

    @discardableResult
    private func buy(_ productID: String, _ offer: OfferRequest? = nil) throws -> StoreSession.PurchaseResult {
        let request = try PurchaseRequest(productID: productID, offer: offer)
        return try session.purchase(try session.quote(request, in: catalog), in: catalog).result
    }

    private func names() throws -> [String] { try session.notifications().map(\.notification.name) }

    /// Moves the clock and brings the state up to it, as any command does.
    private func advance(days: Double) throws {
        clock.advance(days: days)
        _ = try session.snapshot()
    }

    /// The decoded payload of `notification`, signed as `listen` POSTs it.
    private func payload(_ notification: ServerNotification, _ environment: AppStoreEnvironment = .sandbox) throws
        -> JSONValue
    {
        let signer = StoreSession.Signer(identity: Self.identity, environment: environment)
        return try session.notification(notification.uuid, signer: signer).signed.payload
    }

    /// The decoded payload of a JWS inside a notification.
    private func decoded(_ jws: JSONValue?) throws -> JSONValue {
        try JWSInspection.inspect(try #require(jws?.stringValue), trusting: nil).payload
    }

    private func last(_ name: String) throws -> ServerNotification {
        try #require(try session.notifications().last { $0.notification.name == name }?.notification)
    }

    // MARK: 1. Offers

    /// Apple, "notificationType": SUBSCRIBED / INITIAL_BUY is a customer's first subscription
    /// in the group, however it was bought; OFFER_REDEEMED is for a subscription that is active.
    @Test func aFirstSubscriptionThroughAnOfferCodeIsSubscribedInitialBuy() throws {
        guard case .purchased = try buy(monthly, .code(id: "pro.winter")) else {
            Issue.record("expected the code to be redeemed")
            return
        }
        #expect(try names() == ["SUBSCRIBED/INITIAL_BUY"])
    }

    /// A promotional offer, an offer code or a win-back offer taken after the subscription
    /// expired starts it again: SUBSCRIBED / RESUBSCRIBE, the transaction carrying the offer.
    @Test(arguments: [
        OfferRequest.offer(id: "pro.monthly.comeback", signature: nil), .code(id: "pro.winter"),
        .offer(id: "pro.monthly.winback", signature: nil),
    ])
    func anOfferAfterExpiryIsSubscribedResubscribe(_ offer: OfferRequest) throws {
        try buy(monthly)
        _ = try session.cancelSubscription(monthly)
        try advance(days: 10)
        guard case .purchased(let transaction) = try buy(monthly, offer) else {
            Issue.record("expected \(offer) to be redeemed")
            return
        }
        #expect(transaction.offerType != nil)
        #expect(try names().last == "SUBSCRIBED/RESUBSCRIBE")
        #expect(try !names().contains { $0.hasPrefix("OFFER_REDEEMED") })
    }

    /// An offer on an active subscription stays OFFER_REDEEMED: no subtype on the same plan,
    /// DOWNGRADE on a lower level of the group.
    @Test func anOfferOnAnActiveSubscriptionIsOfferRedeemed() throws {
        try buy(monthly)
        try buy(monthly, .code(id: "pro.winter"))
        #expect(try names().last == "OFFER_REDEEMED")
        let other = try Fixture()
        try other.buy(yearly)
        try other.buy(monthly, .code(id: "pro.winter"))
        #expect(try other.names().last == "OFFER_REDEEMED/DOWNGRADE")
    }

    // MARK: 2. Mass renewal extension

    /// Apple, "summary": RENEWAL_EXTENSION / SUMMARY carries a `summary` object and no `data`.
    @Test func aMassExtensionSummaryCarriesASummaryAndNoData() throws {
        try buy(monthly)
        let counts = try session.extendAllRenewalDates(productID: monthly, days: 3)
        #expect(counts.succeeded == 1 && counts.failed == 0)
        let summary = try payload(try last("RENEWAL_EXTENSION/SUMMARY"))
        #expect(summary["data"] == nil)
        let body = try #require(summary["summary"])
        #expect(body["productId"]?.stringValue == monthly)
        #expect(body["bundleId"]?.stringValue == "com.example.app")
        #expect(body["environment"]?.stringValue == "Sandbox")
        #expect(body["succeededCount"] == .int(1) && body["failedCount"] == .int(0))
        #expect(body["requestIdentifier"]?.stringValue != nil)
    }

    /// The summary names the request and the storefronts it was limited to.
    @Test func aMassExtensionSummaryNamesItsRequestAndStorefronts() throws {
        try buy(monthly)
        _ = try session.extendAllRenewalDates(
            productID: monthly, days: 3, requestIdentifier: "fd6c6c5e-mass", storefrontCountryCodes: ["USA", "CAN"])
        let body = try #require(try payload(try last("RENEWAL_EXTENSION/SUMMARY"))["summary"])
        #expect(body["requestIdentifier"]?.stringValue == "fd6c6c5e-mass")
        #expect(body["storefrontCountryCodes"] == .array([.string("USA"), .string("CAN")]))
        #expect(try names().contains("RENEWAL_EXTENDED"))
    }

    /// Apple, "notificationType": RENEWAL_EXTENSION / FAILURE for each subscription a mass
    /// extension could not extend (here one in billing retry), with its data.
    @Test func aMassExtensionSendsAFailureForEachSubscriberItCouldNotExtend() throws {
        _ = try session.setSetting(.billingRetry, to: "true")
        try buy(monthly)
        try advance(days: 8)  // the renewal after the free week fails: billing retry
        let counts = try session.extendAllRenewalDates(productID: monthly, days: 3)
        #expect(counts.succeeded == 0 && counts.failed == 1)
        #expect(try names().suffix(2) == ["RENEWAL_EXTENSION/FAILURE", "RENEWAL_EXTENSION/SUMMARY"])
        let failure = try payload(try last("RENEWAL_EXTENSION/FAILURE"))
        #expect(failure["data"]?["signedTransactionInfo"] != nil)
        #expect(failure["data"]?["status"] == .int(3))
        #expect(try payload(try last("RENEWAL_EXTENSION/SUMMARY"))["summary"]?["failedCount"] == .int(1))
    }

    // MARK: 3, 4. Auto-renew turned off by the App Store

    /// Apple, "subtype": AUTO_RENEW_DISABLED also when "the App Store turned off subscription
    /// auto-renewal after the customer requested a refund".
    @Test func aRefundRequestOnASubscriptionTurnsAutoRenewOff() throws {
        try buy(monthly)
        _ = try session.requestRefund(1, reason: .unintendedPurchase)
        #expect(try names().contains("DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"))
        #expect(try names().contains("CONSUMPTION_REQUEST"))
        let status = try #require(try session.status().subscriptions.first)
        #expect(!status.willAutoRenew)
    }

    /// Declining a price increase turns auto-renew off: DID_CHANGE_RENEWAL_STATUS /
    /// AUTO_RENEW_DISABLED, and the subscription no longer waits for consent.
    @Test func decliningAPriceIncreaseSendsAutoRenewDisabled() throws {
        try buy(monthly)
        _ = try session.increasePrice(monthly, to: Decimal(string: "3.99")!, requiresConsent: true)
        let declined = try session.declinePriceIncrease(monthly)
        #expect(declined.priceIncreaseStatus == .noIncreasePending)
        #expect(try names().last == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
        let status = try #require(try session.status().subscriptions.first)
        #expect(status.priceIncrease == nil && !status.willAutoRenew)
    }

    // MARK: 5. Family Sharing

    /// Apple, "notificationType": ONE_TIME_CHARGE also when "the customer receives access to a
    /// non-consumable product through Family Sharing".
    @Test func aFamilyMemberWhoGainsANonConsumableGetsOneTimeCharge() throws {
        _ = try session.shareFromFamily(
            try PurchaseRequest(productID: "com.example.app.book", isFamilyMember: true), in: catalog)
        #expect(try names() == ["ONE_TIME_CHARGE"])
    }

    /// Apple, "subtype": INITIAL_BUY when the customer "received access through Family Sharing
    /// to the subscription for the first time", whatever the account's own chain does.
    @Test func aFamilyMembersAccessToASubscriptionIsSubscribedBesideItsOwnChain() throws {
        let shareable = try Fixture(shareable: true)
        try shareable.buy(shareable.monthly)  // the account's own chain, active
        _ = try shareable.session.shareFromFamily(
            try PurchaseRequest(productID: shareable.yearly, isFamilyMember: true), in: shareable.catalog)
        #expect(try shareable.names() == ["SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/INITIAL_BUY"])
    }

    // MARK: 6, 7. The moment of each notification

    /// DID_RENEW / BILLING_RECOVERY is dated when billing recovered.
    @Test func billingRecoveryIsDatedWhenBillingRecovered() throws {
        _ = try session.setSetting(.billingRetry, to: "true")
        _ = try session.setSetting(.gracePeriod, to: "true")
        try buy(monthly)
        try advance(days: 10)  // the renewal on day 7 failed: in the grace period
        _ = try session.resolve(1, in: catalog)
        let recovery = try last("DID_RENEW/BILLING_RECOVERY")
        #expect(recovery.date == clock.now)
        #expect(try payload(recovery)["signedDate"] == SignedPayloads.milliseconds(clock.now))
    }

    /// A refund of an earlier period leaves the subscription renewing, and the REFUND
    /// notification's renewal info says so.
    @Test func refundingAnEarlierPeriodLeavesTheRenewalInfoRenewing() throws {
        try buy(monthly)
        try advance(days: 40)  // the free week, then a paid month, then another
        let paid = try #require(try session.store.transactions().first { $0.reason == .renewal })
        _ = try session.refund(paid.id, reason: .other)
        let refund = try payload(try last("REFUND"))
        #expect(refund["data"]?["status"] == .int(1))
        let renewal = try decoded(refund["data"]?["signedRenewalInfo"])
        #expect(renewal["autoRenewStatus"] == .int(1))
        #expect(renewal["expirationIntent"] == nil)
        let transaction = try decoded(refund["data"]?["signedTransactionInfo"])
        #expect(transaction["transactionId"]?.stringValue == String(paid.id))
    }

    // MARK: 8. appAppleId

    /// Apple, "appAppleId": not present in the sandbox; Production carries it.
    @Test func sandboxNotificationsOmitAppAppleID() throws {
        _ = try session.setSetting(.appAppleID, to: "1234567890")
        try buy(monthly)
        let notification = try last("SUBSCRIBED/INITIAL_BUY")
        #expect(try payload(notification, .sandbox)["data"]?["appAppleId"] == nil)
        #expect(try payload(notification, .production)["data"]?["appAppleId"] == .number("1234567890"))
    }

    /// The library tells its front end when it signs Production data with no app Apple ID,
    /// which Apple's verifier rejects.
    @Test func productionDataWithoutAnAppAppleIDIsReported() throws {
        let events = Support.Events()
        let clock = self.clock
        let told = StoreSession(store: session.store, now: { clock.now }, catalog: catalog, events: events.record)
        try buy(monthly)
        let signer = StoreSession.Signer(identity: Self.identity, environment: .sandbox)
        _ = try told.signedTransaction(1, signer: signer)
        #expect(events.all.isEmpty)
        let production = StoreSession.Signer(identity: Self.identity, environment: .production)
        _ = try told.signedTransaction(1, signer: production)
        #expect(events.all == [.productionWithoutAppAppleID])
    }
}

/// A second account on the bundled catalog (or on one whose subscriptions are shareable).
private struct Fixture {
    let catalog: Catalog
    let session: StoreSession
    let monthly = "com.example.app.pro.monthly"
    let yearly = "com.example.app.pro.yearly"

    init(shareable: Bool = false) throws {
        var path = Support.repositoryRoot + "/catalog/Products.storekit"
        if shareable {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            path = Support.temporaryDirectory() + "/shareable.storekit"
            try text.replacingOccurrences(of: "\"familyShareable\" : false", with: "\"familyShareable\" : true")
                .replacingOccurrences(of: "\"familyShareable\": false", with: "\"familyShareable\": true")
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        catalog = try Catalog.load(
            CatalogSource(storeKitPath: path, productIDsPath: Support.repositoryRoot + "/catalog/IAPProductIDs.plist"))
        session = StoreSession(store: Support.store(), now: { Support.fixedDate }, catalog: catalog)
    }

    func buy(_ productID: String, _ offer: OfferRequest? = nil) throws {
        let request = try PurchaseRequest(productID: productID, offer: offer)
        _ = try session.purchase(try session.quote(request, in: catalog), in: catalog)
    }

    func names() throws -> [String] { try session.notifications().map(\.notification.name) }
}
