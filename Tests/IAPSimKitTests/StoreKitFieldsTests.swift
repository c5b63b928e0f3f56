import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// StoreKit 2's `Transaction` and `Product.SubscriptionInfo.Status` fields, refunds of one
/// period, purchase options and Family Sharing, each checked against Apple's documentation.
@Suite struct StoreKitFieldsTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession

    init() throws {
        catalog = try Catalog.load(CatalogSource(storeKitPath: Support.fixture("valid.storekit"), productIDsPath: nil))
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func buy(_ id: String, _ outcome: StoreSession.Outcome? = nil, token: String? = nil) throws
        -> StoreSession.PurchaseResult
    {
        let request = try PurchaseRequest(
            productID: id, outcome: outcome, appAccountToken: try token.map { try UUID(appAccountToken: $0) })
        return try session.purchase(try session.quote(request, in: catalog), in: catalog).result
    }

    private func signing(_ now: Date) throws -> SigningContext {
        let state = try session.store.read()
        return SigningContext(
            bundleID: "com.example.app", appAppleID: nil, environment: .sandbox, signedDate: now,
            appTransactionID: try #require(state.account.appTransactionID))
    }

    // MARK: A. StoreKit 2's fields

    /// Apple, "Transaction": `environment`, `webOrderLineItemID`, `ownershipType`,
    /// `signedDate`, `appTransactionID`, `offer` (type, id, paymentMode, period) and
    /// `storefront`; an introductory offer has no identifier.
    @Test func aTransactionCarriesStoreKit2sFields() throws {
        let transaction = try #require(try buy("fx.plus.monthly").transaction)  // a free week first
        let context = try session.storeKitContext()
        let json = transaction.storeKitJSON(context)
        #expect(json["environment"]?.stringValue == "Sandbox")
        #expect(json["ownershipType"]?.stringValue == "purchased")
        #expect(json["signedDate"]?.stringValue == ISO8601Date.string(Support.fixedDate))
        #expect(json["appTransactionID"]?.stringValue == (try session.store.read().account.appTransactionID))
        #expect(json["offer"]?["type"]?.stringValue == "introductory")
        #expect(json["offer"]?["id"] == .null)
        #expect(json["offer"]?["paymentMode"]?.stringValue == "freeTrial")
        #expect(json["offer"]?["period"]?.stringValue == "P1W")
        #expect(json["storefront"]?["countryCode"]?.stringValue == "USA")
        #expect(json["storefront"]?["id"]?.stringValue == "143441")
        // One derivation of webOrderLineItemID: the signed payload says the same.
        let signed = SignedPayloads.transaction(transaction, context: try signing(Support.fixedDate))
        #expect(json["webOrderLineItemID"]?.stringValue == signed["webOrderLineItemId"]?.stringValue)
        #expect(signed["offerPeriod"]?.stringValue == "P1W")
        // A non-subscription has no web order line item.
        let book = try #require(try buy("fx.levels").transaction)
        #expect(book.storeKitJSON(context)["webOrderLineItemID"] == .null)
        #expect(book.storeKitJSON(context)["offer"] == .null)
    }

    /// Apple, "Product.SubscriptionInfo.Status": `state`, `transaction` and `renewalInfo`; the
    /// renewal info says what the signed JWSRenewalInfo says ("JWSRenewalInfoDecodedPayload").
    @Test func theStatusArrayAgreesWithTheSignedRenewalInfo() throws {
        _ = try buy("fx.plus.yearly")
        let status = try session.status()
        let group = try #require(status.subscriptionGroups.first)
        #expect(group.groupID == "G1")
        let element = try #require(group.statuses.first).storeKitJSON(status.storeKitContext)
        #expect(element["state"]?.stringValue == "subscribed")
        #expect(element["transaction"]?["id"] == .int(1))
        let info = try #require(element["renewalInfo"])
        #expect(info["willAutoRenew"] == .bool(true))
        #expect(info["autoRenewPreference"]?.stringValue == "fx.plus.yearly")
        #expect(info["priceIncreaseStatus"]?.stringValue == "noIncreasePending")
        #expect(info["eligibleWinBackOfferIDs"] == .array([]))
        #expect(info["renewalPrice"]?.stringValue == "19.99")
        let chain = try #require(status.subscriptions.first)
        let signed = SignedPayloads.renewalInfo(
            chain.renewalInfo, latest: chain.transaction, state: chain.state, context: try signing(status.now))
        #expect(
            info["renewalDate"]?.stringValue.flatMap(ISO8601Date.date).map(SignedPayloads.milliseconds)
                == signed["renewalDate"])
        // Cancelled: it will not renew, but has not expired yet, so says no reason; the
        // renewal date stays (Apple, "renewalDate", "expirationReason").
        _ = try session.cancelSubscription("fx.plus.yearly")
        let cancelled = try #require(try session.status().subscriptions.first)
        let facts = cancelled.renewalInfo.facts(latest: cancelled.transaction, state: cancelled.state)
        #expect(!facts.willAutoRenew && facts.expirationReason == nil)
        #expect(facts.renewalDate == cancelled.transaction.expirationDate)
    }

    // MARK: B. Refunds

    /// Apple, "refundTransaction(identifier:)" and "Handling refund notifications": a refund
    /// revokes the refunded transaction; an earlier period's refund leaves the current period,
    /// and so the subscription, active. `status`, `list` and the status array agree.
    @Test func refundingAnEarlierRenewalLeavesTheSubscriptionActive() throws {
        _ = try buy("fx.plus.yearly")
        clock.advance(days: 400)  // renewed once: transaction 2 is the current period
        #expect(try session.status().subscriptions.first?.transaction.id == 2)
        let revocation = try session.refundTransaction(1, reason: .other)
        #expect(revocation.transaction.revocationDate == clock.now)
        #expect(revocation.appRecord == .kept)
        let status = try session.status()
        #expect(status.subscriptions.first?.state == .subscribed)
        #expect(status.isEntitled(to: "fx.plus.yearly"))
        #expect(status.purchasedProductIdentifiers.contains("fx.plus.yearly"))
        #expect(status.ownership(of: try catalog.purchasableProduct("fx.plus.yearly")) == .subscribed)
        let element = try #require(status.subscriptionGroups.first?.statuses.first).storeKitJSON(status.storeKitContext)
        #expect(element["state"]?.stringValue == "subscribed")
        #expect(element["renewalInfo"]?["willAutoRenew"] == .bool(true))
        // It keeps renewing.
        clock.advance(days: 366)
        #expect(try session.status().subscriptions.first?.transaction.id == 3)
        // The REFUND notification reports the subscription's status: still active.
        let refund = try #require(try session.notifications().first { $0.notification.kind == .refund })
        #expect(refund.notification.status == .active)
    }

    @Test func refundingTheCurrentPeriodRevokesTheSubscription() throws {
        _ = try buy("fx.plus.yearly")
        clock.advance(days: 400)
        #expect(try session.refundTransaction(2, reason: .other).appRecord == .productRemoved)
        let status = try session.status()
        #expect(status.subscriptions.first?.state == .revoked)
        #expect(!status.purchasedProductIdentifiers.contains("fx.plus.yearly"))
    }

    // MARK: C. Purchase options

    /// Apple, "Product.PurchaseOption.appAccountToken(_:)" and "appAccountToken": the token
    /// is on the transaction, on its renewals, and on a purchase approved later.
    @Test func theAppAccountTokenStaysWithThePurchase() throws {
        let token = "0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e"
        _ = try buy("fx.plus.yearly", token: token)
        clock.advance(days: 400)
        _ = try session.status()
        let history = try session.store.transactions()
        #expect(history.count == 2 && history.allSatisfy { $0.appAccountToken?.appleString == token })
        let signed = SignedPayloads.transaction(history[1], context: try signing(clock.now))
        #expect(signed["appAccountToken"]?.stringValue == token)
        guard case .pending(let request) = try buy("fx.levels", .askToBuy, token: token) else {
            Issue.record("expected Ask to Buy")
            return
        }
        guard case .purchased(let approved) = try session.approve(request.id, in: catalog) else {
            Issue.record("expected the approval to purchase")
            return
        }
        #expect(approved.appAccountToken?.appleString == token)
    }

    // MARK: D. Family Sharing

    /// Apple, "Supporting Family Sharing in your app": a shared purchase is the family
    /// member's own transaction with `ownershipType` `familyShared` (`FAMILY_SHARED` signed
    /// and in Get Transaction History's `inAppOwnershipType` filter); when sharing stops the
    /// entitlement goes, the revoked transaction is delivered and the App Store sends REVOKE.
    @Test func aFamilySharedPurchaseAndItsRevocation() throws {
        let bundled = try Catalog.load(
            CatalogSource(
                storeKitPath: Support.repositoryRoot + "/catalog/Products.storekit",
                productIDsPath: Support.repositoryRoot + "/catalog/IAPProductIDs.plist"))
        _ = try session.buy(try bundled.purchasableProduct("com.example.app.coins100"), in: bundled)
        let shared = try session.shareFromFamily(
            try PurchaseRequest(productID: "com.example.app.book", isFamilyMember: true), in: bundled)
        #expect(shared.ownershipType == .familyShared)
        #expect(try session.status().purchasedProductIdentifiers == ["com.example.app.book"])
        let signed = SignedPayloads.transaction(shared, context: try signing(clock.now))
        #expect(signed["inAppOwnershipType"]?.stringValue == "FAMILY_SHARED")
        let familyPage = try session.historyPage(transactionID: 1, query: HistoryQuery(ownership: .familyShared))
        #expect(familyPage.transactions.map(\.id) == [shared.id])
        let ownPage = try session.historyPage(transactionID: 1, query: HistoryQuery(ownership: .purchased))
        #expect(ownPage.transactions.map(\.id) == [1])
        // Only what the family shares can be revoked this way.
        #expect(throws: SimulationError.notFamilyShared(id: 1)) { try session.revokeFamilySharing(1) }
        let revocation = try session.revokeFamilySharing(shared.id)
        #expect(revocation.transaction.revocationDate == clock.now)
        #expect(revocation.transaction.revocationReason == nil)
        #expect(revocation.appRecord == .productRemoved)
        #expect(try session.status().purchasedProductIdentifiers.isEmpty)
        let revoked = SignedPayloads.transaction(revocation.transaction, context: try signing(clock.now))
        #expect(revoked["revocationType"]?.stringValue == "FAMILY_REVOKE")
        let kinds = try session.notifications().map(\.notification.kind)
        #expect(kinds.contains(.revoke))
        #expect(throws: SimulationError.alreadyRevoked(id: shared.id)) { try session.revokeFamilySharing(shared.id) }
    }

    @Test func onlyFamilyShareableProductsAreShared() throws {
        let bundled = try Catalog.load(
            CatalogSource(
                storeKitPath: Support.repositoryRoot + "/catalog/Products.storekit",
                productIDsPath: Support.repositoryRoot + "/catalog/IAPProductIDs.plist"))
        let notShareable = try #require(bundled.products.first { !$0.familyShareable && $0.type == .nonConsumable })
        #expect(throws: PurchaseError.notFamilyShareable(productID: notShareable.id, isConsumable: false)) {
            try session.shareFromFamily(
                try PurchaseRequest(productID: notShareable.id, isFamilyMember: true), in: bundled)
        }
        #expect(try session.store.transactions().isEmpty)
    }

    /// A shared subscription is a chain of its own, renewing beside the account's.
    @Test func aSharedSubscriptionRenewsAsSharedWithNoIntroductoryOffer() throws {
        let text = try String(contentsOfFile: Support.fixture("valid.storekit"), encoding: .utf8)
        let path = Support.temporaryDirectory() + "/shareable.storekit"
        try text.replacingOccurrences(of: "\"familyShareable\": false", with: "\"familyShareable\": true")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let shareable = try Catalog.load(CatalogSource(storeKitPath: path, productIDsPath: nil))
        let shared = try session.shareFromFamily(
            try PurchaseRequest(productID: "fx.plus.monthly", isFamilyMember: true), in: shareable)
        #expect(shared.offerType == nil && shared.ownershipType == .familyShared)
        clock.advance(days: 40)
        let latest = try #require(try session.status().subscriptions.first?.transaction)
        #expect(latest.reason == .renewal && latest.ownershipType == .familyShared)
    }
}
