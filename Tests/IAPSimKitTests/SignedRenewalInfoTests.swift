import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The signed JWSRenewalInfo field by field against Apple's pages for each field
/// ("JWSRenewalInfoDecodedPayload": `renewalDate`, `expirationIntent`,
/// `recentSubscriptionStartDate`, `appAccountToken`).
@Suite struct SignedRenewalInfoTests {
    let h: ServerAPIHarness

    init() throws { h = try ServerAPIHarness() }

    /// Apple, "renewalDate": "always present in the payload for auto-renewable subscriptions,
    /// even for expired subscriptions", the expiration of the most recent purchase or renewal.
    @Test func renewalDateStaysWithAutoRenewOffAndAfterExpiry() throws {
        let bought = try h.buy("fx.plus.yearly")
        #expect(try h.signedRenewalInfo("fx.plus.yearly")["renewalDate"] == ServerAPIHarness.ms(bought.expirationDate))
        _ = try h.session.cancelSubscription("fx.plus.yearly")
        #expect(try h.signedRenewalInfo("fx.plus.yearly")["renewalDate"] == ServerAPIHarness.ms(bought.expirationDate))
        h.clock.advance(days: 400)
        let expired = try h.signedRenewalInfo("fx.plus.yearly")
        #expect(expired["renewalDate"] == ServerAPIHarness.ms(bought.expirationDate))
        #expect(expired["autoRenewStatus"] == .int(0))
    }

    /// Apple, "expirationReason": nil while the subscription "is active and hasn't expired";
    /// with auto-renew off it is still active, so `expirationIntent` waits for the expiry.
    @Test func expirationIntentAppearsOnlyOnceTheSubscriptionHasExpired() throws {
        try h.buy("fx.plus.yearly")
        _ = try h.session.cancelSubscription("fx.plus.yearly")
        #expect(try h.signedRenewalInfo("fx.plus.yearly")["expirationIntent"] == nil)
        let status = try #require(try h.session.status().subscriptions.first)
        #expect(status.renewalInfo.facts(latest: status.transaction, state: status.state).expirationReason == nil)
        h.clock.advance(days: 400)
        #expect(try h.signedRenewalInfo("fx.plus.yearly")["expirationIntent"] == .int(1))
    }

    /// In the grace period and billing retry past it: the period ended without a renewal —
    /// `expirationIntent` 2 beside `isInBillingRetryPeriod` (Apple, "isInBillingRetry": in the
    /// grace period `expirationReason` is `billingError`).
    @Test func billingRetryPastGraceSaysBillingError() throws {
        _ = try h.session.setSetting(.billingRetry, to: "true")
        _ = try h.session.setSetting(.gracePeriod, to: "true")
        try h.buy("fx.plus.yearly")
        h.clock.advance(days: 366)
        let grace = try h.signedRenewalInfo("fx.plus.yearly")
        #expect(grace["isInBillingRetryPeriod"] == .bool(true) && grace["expirationIntent"] == .int(2))
        #expect(grace["gracePeriodExpiresDate"] != nil)
        h.clock.advance(days: 20)
        let retry = try h.signedRenewalInfo("fx.plus.yearly")
        #expect(retry["isInBillingRetryPeriod"] == .bool(true) && retry["expirationIntent"] == .int(2))
    }

    /// Apple, "recentSubscriptionStartDate": the earliest start "that ignores all lapses of
    /// paid service shorter than 60 days": a lapse of 61 days starts the run again.
    @Test func recentSubscriptionStartDateStartsAgainAfterALapseOfMoreThan60Days() throws {
        let first = try h.buy("fx.plus.yearly")
        _ = try h.session.cancelSubscription("fx.plus.yearly")
        let end = try #require(first.expirationDate)
        h.clock.advance(seconds: end.timeIntervalSince(h.clock.now) + 61 * 86_400)
        let again = try h.buy("fx.plus.yearly")
        #expect(again.originalID == first.originalID)
        let info = try h.signedRenewalInfo("fx.plus.yearly")
        #expect(info["recentSubscriptionStartDate"] == ServerAPIHarness.ms(again.purchaseDate))
        #expect(info["recentSubscriptionStartDate"] != ServerAPIHarness.ms(first.purchaseDate))
    }

    /// A lapse shorter than 60 days is ignored: the run that began with the first purchase goes on.
    @Test func aLapseShorterThan60DaysKeepsTheRecentStart() throws {
        let first = try h.buy("fx.plus.yearly")
        _ = try h.session.cancelSubscription("fx.plus.yearly")
        let end = try #require(first.expirationDate)
        h.clock.advance(seconds: end.timeIntervalSince(h.clock.now) + 59 * 86_400)
        try h.buy("fx.plus.yearly")
        #expect(
            try h.signedRenewalInfo("fx.plus.yearly")["recentSubscriptionStartDate"]
                == ServerAPIHarness.ms(first.purchaseDate))
    }

    /// Apple, "JWSRenewalInfoDecodedPayload": `appAccountToken`, the UUID the app tied to the
    /// purchase, in the renewal info as in the transaction.
    @Test func renewalInfoCarriesTheAppAccountToken() throws {
        let token = "6f1c2a6e-2b8e-4d8c-9c83-3f0e0a7b1d42"
        try h.buy("fx.plus.yearly", token: token)
        #expect(try h.signedRenewalInfo("fx.plus.yearly")["appAccountToken"] == .string(token))
    }
}

/// App Store Server API 1.21 ("App Store Server API changelog"): transactions carry
/// `billingPlanType` and, paid monthly, `commitmentInfo` (TransactionCommitmentInfo); renewal
/// info carries `renewalBillingPlanType` and, in a commitment, its `commitmentInfo`
/// (RenewalCommitmentInfo).
@Suite struct BillingPlanPayloadTests {
    let h: ServerAPIHarness

    init() throws { h = try ServerAPIHarness() }

    @Test func aMonthlyPaymentSaysItsPlanAndItsPlaceInTheCommitment() throws {
        let first = try h.buy("fx.plus.yearly", billingPlan: .monthly)
        let signed = try h.signedTransaction(first.id)
        #expect(signed["billingPlanType"] == .string("MONTHLY"))
        let end = first.purchaseDate.addingTimeInterval(365 * 86_400)
        let commitment = try #require(signed["commitmentInfo"])
        #expect(commitment["billingPeriodNumber"] == .int(1) && commitment["totalBillingPeriods"] == .int(12))
        #expect(commitment["commitmentExpiresDate"] == ServerAPIHarness.ms(end))
        #expect(commitment["commitmentPrice"] == .number("23880"))
        h.clock.advance(days: 32)
        let second = try #require(try h.session.status().subscriptions.first?.transaction)
        #expect(second.reason == .renewal)
        let renewal = try h.signedTransaction(second.id)
        #expect(renewal["commitmentInfo"]?["billingPeriodNumber"] == .int(2))
        #expect(renewal["commitmentInfo"]?["commitmentExpiresDate"] == ServerAPIHarness.ms(end))
        let info = try h.signedRenewalInfo("fx.plus.yearly")
        #expect(info["renewalBillingPlanType"] == .string("MONTHLY"))
        let next = try #require(info["commitmentInfo"])
        #expect(next["commitmentRenewalDate"] == ServerAPIHarness.ms(end))
        #expect(next["commitmentAutoRenewProductId"] == .string("fx.plus.yearly"))
        #expect(next["commitmentAutoRenewStatus"] == .int(1))
        #expect(next["commitmentRenewalBillingPlanType"] == .string("MONTHLY"))
        #expect(next["commitmentRenewalPrice"] == .number("23880"))
        _ = try h.session.cancelSubscription("fx.plus.yearly")
        #expect(try h.signedRenewalInfo("fx.plus.yearly")["commitmentInfo"]?["commitmentAutoRenewStatus"] == .int(0))
    }

    @Test func aSubscriptionPaidUpFrontSaysBilledUpfront() throws {
        let bought = try h.buy("fx.plus.yearly")
        let signed = try h.signedTransaction(bought.id)
        #expect(signed["billingPlanType"] == .string("BILLED_UPFRONT") && signed["commitmentInfo"] == nil)
        let info = try h.signedRenewalInfo("fx.plus.yearly")
        #expect(info["renewalBillingPlanType"] == .string("BILLED_UPFRONT") && info["commitmentInfo"] == nil)
        let coins = try h.buy("fx.coins")
        #expect(try h.signedTransaction(coins.id)["billingPlanType"] == nil)
    }
}
