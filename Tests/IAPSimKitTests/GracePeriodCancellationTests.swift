import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The Billing Grace Period as Apple's pages tell it. "Testing failing subscription renewals
/// and In-App Purchases": a customer who cancels in the grace period cancels the subscription
/// at once, and it is no longer entitled; "responseBody.Pending_renewal_info": the App Store
/// pauses billing retry and removes it from `pending_renewal_info`. "isInBillingRetry": in the
/// grace period `isInBillingRetry` is true, `expirationReason` is `billingError` and the grace
/// date is set — in StoreKit 2, signed renewal info, notifications and `pending_renewal_info`.
@Suite struct GracePeriodCancellationTests {
    let h: ServerAPIHarness
    let device = UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000ABCD")!
    let monthly = "fx.plus.monthly"

    init() throws { h = try ServerAPIHarness() }

    /// Subscribes with billing issues and a grace period on, and lets the renewal after the
    /// free week fail: the subscription is in its grace period.
    private func enterGrace() throws -> Transaction {
        _ = try h.session.setSetting(.billingRetry, to: "true")
        _ = try h.session.setSetting(.gracePeriod, to: "true")
        let bought = try h.buy(monthly)
        h.clock.advance(days: 8)
        #expect(try status().state == .inGracePeriod)
        return bought
    }

    private func status() throws -> AccountStatus.SubscriptionStatus {
        try #require(try h.session.status().subscriptions.first)
    }

    private func names() throws -> [String] { try h.session.notifications().map(\.notification.name) }

    private func verify() throws -> JSONValue {
        let receipt = try h.session.appReceipt(StoreSession.ReceiptRequest(deviceIdentifier: device, environment: nil))
        let signed = try ServerAPIHarness.identity.signReceipt(receipt)
        let endpoint = VerifyReceiptEndpoint(
            session: h.session, signer: StoreSession.Signer(identity: ServerAPIHarness.identity))
        let body = JSONValue.object([("receipt-data", .string(Data(signed).base64EncodedString()))])
        return endpoint.response(method: "POST", body: body.bytes(compact: true))
    }

    /// Ends the subscription now: inactive, not entitled, no billing retry, EXPIRED dated now,
    /// and nothing sent later.
    private func expectEndedNow(_ subtype: String) throws {
        let now = h.clock.now
        let last = try #require(try h.session.notifications().last?.notification)
        #expect(last.name == "EXPIRED/\(subtype)" && last.date == now && last.status == .expired)
        let ended = try status()
        #expect(ended.state == .expired && !ended.isInBillingRetry && ended.gracePeriodExpirationDate == nil)
        #expect(try h.session.status().entitlements.isEmpty)
        let count = try names().count
        h.clock.advance(days: 70)
        #expect(try names().count == count)  // no EXPIRED when the grace period would have ended
    }

    // MARK: 1. Cancelling in the grace period ends the subscription at once.

    @Test func cancellingInGraceExpiresTheSubscriptionNow() throws {
        _ = try enterGrace()
        _ = try h.session.cancelSubscription(monthly)
        #expect(try names().suffix(2) == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY"])
        try expectEndedNow("VOLUNTARY")
        #expect(try status().expirationReason == .autoRenewDisabled)
    }

    @Test func decliningAPriceIncreaseInGraceExpiresTheSubscriptionNow() throws {
        _ = try enterGrace()
        _ = try h.session.increasePrice(monthly, to: Decimal(string: "9.99")!, requiresConsent: true)
        let change = try h.session.declinePriceIncrease(monthly)
        #expect(change.info.phase == .expired)
        try expectEndedNow("PRICE_INCREASE")
        #expect(try status().expirationReason == .didNotConsentToPriceIncrease)
    }

    @Test func aRefundRequestInGraceExpiresTheSubscriptionNow() throws {
        let bought = try enterGrace()
        _ = try h.session.requestRefund(bought.id, reason: .unsatisfiedWithPurchase)
        #expect(
            try names().suffix(3) == [
                "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY", "CONSUMPTION_REQUEST",
            ])
        let request = try #require(try h.session.notifications().last?.notification)
        #expect(request.status == .expired && request.consumptionRequestReason == .unsatisfiedWithPurchase)
        #expect(try status().state == .expired)
    }

    /// "responseBody.Pending_renewal_info": removed once cancelled in the grace period; the
    /// renewal info the API signs still tells the chain's end.
    @Test func cancelledInGraceLeavesPendingRenewalInfo() throws {
        let bought = try enterGrace()
        #expect(try verify()["pending_renewal_info"]?.arrayValue?.count == 1)
        _ = try h.session.cancelSubscription(monthly)
        let answer = try verify()
        #expect(answer["status"] == .int(0))
        #expect(answer["pending_renewal_info"]?.arrayValue == [])
        #expect(answer["latest_receipt_info"]?.arrayValue?.first?["transaction_id"] == .string(String(bought.id)))
        let signed = try h.signedRenewalInfo(monthly)
        #expect(signed["autoRenewStatus"] == .int(0) && signed["expirationIntent"] == .int(1))
        #expect(signed["isInBillingRetryPeriod"] == .bool(false) && signed["gracePeriodExpiresDate"] == nil)
        // Subscribing again brings the chain back to pending_renewal_info.
        _ = try h.buy(monthly)
        #expect(try verify()["pending_renewal_info"]?.arrayValue?.count == 1)
    }

    /// Past the grace period billing retry was already the rule: ended at once, and the chain
    /// stays in `pending_renewal_info` (Apple removes only one cancelled in the grace period).
    @Test func cancellingInBillingRetryKeepsPendingRenewalInfo() throws {
        _ = try enterGrace()
        h.clock.advance(days: 20)
        #expect(try status().state == .inBillingRetryPeriod)
        _ = try h.session.cancelSubscription(monthly)
        #expect(try names().last == "EXPIRED/VOLUNTARY")
        let renewal = try #require(try verify()["pending_renewal_info"]?.arrayValue?.first)
        #expect(renewal["expiration_intent"] == .string("1") && renewal["is_in_billing_retry_period"] == .string("0"))
    }

    // MARK: 2. The expiration reason in the grace period.

    @Test func inGraceTheExpirationReasonIsABillingError() throws {
        _ = try enterGrace()
        let grace = try status()
        let facts = grace.renewalInfo.facts(latest: grace.transaction, state: grace.state)
        #expect(facts.expirationReason == .billingError && grace.isInBillingRetry)
        #expect(facts.gracePeriodExpirationDate != nil)
        let context = StoreKitContext(signedDate: h.clock.now, appTransactionID: "1")
        let storeKit = grace.storeKitJSON(context)["renewalInfo"]
        #expect(storeKit?["expirationReason"] == .string("billingError"))
        #expect(storeKit?["isInBillingRetry"] == .bool(true))
        let signed = try h.signedRenewalInfo(monthly)
        #expect(signed["expirationIntent"] == .int(2) && signed["isInBillingRetryPeriod"] == .bool(true))
        #expect(signed["gracePeriodExpiresDate"] != nil)
        let renewal = try #require(try verify()["pending_renewal_info"]?.arrayValue?.first)
        #expect(renewal["expiration_intent"] == .string("2"))
        #expect(renewal["is_in_billing_retry_period"] == .string("1"))
        let graceEnd = try #require(facts.gracePeriodExpirationDate)
        #expect(renewal["grace_period_expires_date"] == LegacyReceiptJSON.date("x", graceEnd)[0].1)
    }

    /// The notification of the failed renewal carries the renewal info of the grace period.
    @Test func theFailedRenewalsNotificationSaysBillingError() throws {
        _ = try enterGrace()
        let failed = try #require(
            try h.session.notifications().map(\.notification).first { $0.name == "DID_FAIL_TO_RENEW/GRACE_PERIOD" })
        let context = SigningContext(
            bundleID: "com.example.app", appAppleID: nil, environment: .localTesting, signedDate: failed.date,
            appTransactionID: "1")
        let payload = NotificationPayload.payload(failed, context: context, identity: ServerAPIHarness.identity)
        #expect(payload["data"]?["status"] == .int(4))
        let renewal = try ServerAPIHarness.payload(payload["data"]?["signedRenewalInfo"]?.stringValue)
        #expect(renewal["expirationIntent"] == .int(2) && renewal["isInBillingRetryPeriod"] == .bool(true))
    }
}
