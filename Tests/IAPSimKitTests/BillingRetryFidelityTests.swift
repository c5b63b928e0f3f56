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
        #expect(try buy(.offer(id: "pro.monthly.winback", signature: nil)) == .failed(.purchase(.ineligibleForOffer)))
        #expect(try session.store.transactions().count == 1)
    }

    // MARK: 24.

    /// Cancelled in the grace period the subscription ends at once (Apple, "Testing failing
    /// subscription renewals and In-App Purchases"): EXPIRED / VOLUNTARY now, no more retries
    /// (`GracePeriodCancellationTests` checks the rest).
    @Test func autoRenewOffDuringGraceExpiresAtOnce() throws {
        try failRenewal(grace: true)
        _ = try session.cancelSubscription(monthly)
        let notifications = try session.notifications().map(\.notification)
        #expect(
            notifications.suffix(2).map(\.name) == [
                "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY",
            ])
        #expect(notifications.last?.date == clock.now)
        let status = try #require(try session.status().subscriptions.first)
        #expect(status.state == .expired && !status.isInBillingRetry)
        #expect(status.expirationReason == .autoRenewDisabled)
        try advance(days: 70)
        #expect(try names().last == "EXPIRED/VOLUNTARY")  // no GRACE_PERIOD_EXPIRED, no second EXPIRED
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

    /// Turned back on after cancelling in the grace period, the subscription stays expired:
    /// cancelling ended it, so billing retry does not come back (a purchase starts it again).
    @Test func autoRenewBackOnAfterCancellingInGraceDoesNotResumeBillingRetry() throws {
        try failRenewal(grace: true)
        _ = try session.cancelSubscription(monthly)
        #expect(throws: SimulationError.cancelledInGracePeriod(productID: monthly)) {
            try session.resumeSubscription(monthly)
        }
        try advance(days: 70)
        #expect(try names().last == "EXPIRED/VOLUNTARY")
        #expect(try session.status().subscriptions.first?.state == .expired)
    }
}
