import Foundation
import Testing

@testable import IAPSimKit

/// What a subscriber can do while a renewal is failing (Apple, "Reducing involuntary
/// subscriber churn"): no win-back offer (Apple, "eligibleWinBackOfferIDs": "Subscriptions in
/// a Billing Grace Period or billing retry state aren't eligible for win-back offers"), and
/// turning auto-renew off ends billing retry.
@Suite struct BillingRetryFidelityTests {
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

    private func names() throws -> [String] { try session.notifications().map(\.notification.name) }

    private func advance(days: Double) throws {
        clock.advance(days: days)
        _ = try session.snapshot()
    }

    /// Subscribes with billing issues on, and lets the renewal after the free week fail.
    private func failRenewal(grace: Bool) throws {
        _ = try session.setSetting(.billingRetry, to: "true")
        _ = try session.setSetting(.gracePeriod, to: grace ? "true" : "false")
        _ = try buy()
        try advance(days: 8)
    }

    // MARK: 23.

    @Test(arguments: [true, false])
    func aWinBackOfferIsRefusedDuringGraceAndBillingRetry(grace: Bool) throws {
        try failRenewal(grace: grace)
        let state = try #require(try session.status().subscriptions.first?.state)
        #expect(state == (grace ? .inGracePeriod : .inBillingRetryPeriod))
        #expect(try buy(.offer(id: "pro.monthly.winback", signature: nil)) == .failed(.purchase("ineligibleForOffer")))
        #expect(try session.store.transactions().count == 1)
    }

    // MARK: 24.

    /// In the grace period the customer keeps access to its end; then the subscription
    /// expires as one whose auto-renew was turned off: EXPIRED / VOLUNTARY, no more retries.
    @Test func autoRenewOffDuringGraceExpiresAtTheEndOfGrace() throws {
        try failRenewal(grace: true)
        let grace = try #require(try session.status().subscriptions.first?.gracePeriodExpirationDate)
        _ = try session.cancelSubscription(monthly)
        #expect(try names().last == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
        #expect(try session.status().subscriptions.first?.state == .inGracePeriod)
        try advance(days: 70)
        let notifications = try session.notifications().map(\.notification)
        let names = notifications.suffix(2).map(\.name)
        #expect(names == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY"])
        #expect(notifications.last?.date == grace)
        let status = try #require(try session.status().subscriptions.first)
        #expect(status.state == .expired && !status.isInBillingRetry)
        #expect(status.expirationReason == .autoRenewDisabled)
    }

    /// Past the grace period (or without one) access has ended: the subscription expires at
    /// once, EXPIRED / VOLUNTARY.
    @Test func autoRenewOffDuringBillingRetryExpiresAtOnce() throws {
        try failRenewal(grace: false)
        _ = try session.cancelSubscription(monthly)
        #expect(try names().suffix(2) == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY"])
        let status = try #require(try session.status().subscriptions.first)
        #expect(status.state == .expired && !status.isInBillingRetry)
        try advance(days: 70)
        #expect(try names().last == "EXPIRED/VOLUNTARY")  // no EXPIRED / BILLING_RETRY later
    }

    /// Turned back on before the grace period ends, billing retry goes on as before.
    @Test func autoRenewBackOnDuringGraceResumesBillingRetry() throws {
        try failRenewal(grace: true)
        _ = try session.cancelSubscription(monthly)
        _ = try session.resumeSubscription(monthly)
        try advance(days: 70)
        #expect(
            Array(try names().suffix(2)) == ["GRACE_PERIOD_EXPIRED", "EXPIRED/BILLING_RETRY"])
    }
}
