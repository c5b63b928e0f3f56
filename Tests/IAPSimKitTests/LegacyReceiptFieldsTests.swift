import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// `/verifyReceipt`'s `pending_renewal_info`, `latest_receipt_info` and `receipt.in_app`
/// against Apple's data dictionaries ("responseBody.Pending_renewal_info",
/// "responseBody.Latest_receipt_info", "responseBody.Receipt.In_app"): no field Apple does not
/// list, and each one Apple lists where Apple writes it.
@Suite struct LegacyReceiptFieldsTests {
    let h: ServerAPIHarness
    let device = UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000ABCD")!

    init() throws { h = try ServerAPIHarness() }

    /// Apple, "responseBody.Pending_renewal_info".
    static let pendingRenewalInfoFields: Set<String> = [
        "auto_renew_product_id", "auto_renew_status", "expiration_intent", "grace_period_expires_date",
        "grace_period_expires_date_ms", "grace_period_expires_date_pst", "is_in_billing_retry_period",
        "offer_code_ref_name", "original_transaction_id", "price_consent_status", "price_increase_status",
        "product_id", "promotional_offer_id",
    ]

    /// Apple, "responseBody.Latest_receipt_info".
    static let latestReceiptInfoFields: Set<String> = [
        "app_account_token", "cancellation_date", "cancellation_date_ms", "cancellation_date_pst",
        "cancellation_reason", "expires_date", "expires_date_ms", "expires_date_pst", "in_app_ownership_type",
        "is_in_intro_offer_period", "is_trial_period", "is_upgraded", "offer_code_ref_name", "original_purchase_date",
        "original_purchase_date_ms", "original_purchase_date_pst", "original_transaction_id", "product_id",
        "promotional_offer_id", "purchase_date", "purchase_date_ms", "purchase_date_pst", "quantity",
        "subscription_group_identifier", "transaction_id", "web_order_line_item_id",
    ]

    /// Apple, "responseBody.Receipt.In_app".
    static let inAppFields: Set<String> = latestReceiptInfoFields.subtracting([
        "app_account_token", "in_app_ownership_type", "is_upgraded", "offer_code_ref_name",
        "subscription_group_identifier",
    ])

    private func verify() throws -> JSONValue {
        let receipt = try h.session.appReceipt(StoreSession.ReceiptRequest(deviceIdentifier: device, environment: nil))
        let signed = try ServerAPIHarness.identity.signReceipt(receipt)
        let endpoint = VerifyReceiptEndpoint(
            session: h.session, signer: StoreSession.Signer(identity: ServerAPIHarness.identity))
        let body = JSONValue.object([("receipt-data", .string(Data(signed).base64EncodedString()))])
        return endpoint.response(method: "POST", body: body.bytes(compact: true))
    }

    private func keys(_ value: JSONValue?) -> Set<String> {
        guard case .object(let members)? = value else { return [] }
        return Set(members.map(\.0))
    }

    private func renewal() throws -> JSONValue {
        try #require(try verify()["pending_renewal_info"]?.arrayValue?.first)
    }

    // MARK: 3. The price increase fields.

    /// Apple, "price_increase_status": "0" while an increase waits for consent, "1" once
    /// consented; "price_consent_status" only for an increase that asked for consent.
    @Test func anIncreaseThatNeedsConsentWritesBothFields() throws {
        try h.buy("fx.plus.yearly")
        _ = try h.session.increasePrice("fx.plus.yearly", to: Decimal(string: "99.99")!, requiresConsent: true)
        var fields = try renewal()
        #expect(fields["price_increase_status"] == .string("0") && fields["price_consent_status"] == .string("0"))
        _ = try h.session.consentToPriceIncrease("fx.plus.yearly")
        fields = try renewal()
        #expect(fields["price_increase_status"] == .string("1") && fields["price_consent_status"] == .string("1"))
    }

    @Test func anIncreaseThatNeedsNoConsentWritesOnlyTheIncreaseStatus() throws {
        try h.buy("fx.plus.yearly")
        #expect(try renewal()["price_increase_status"] == nil)
        _ = try h.session.increasePrice("fx.plus.yearly", to: Decimal(string: "99.99")!, requiresConsent: false)
        let fields = try renewal()
        #expect(fields["price_increase_status"] == .string("1") && fields["price_consent_status"] == nil)
    }

    // MARK: 6. cancellation_reason in receipt.in_app.

    /// Apple, "responseBody.Receipt.In_app": a refunded or revoked purchase carries
    /// `cancellation_reason` beside its `cancellation_date`, as `latest_receipt_info` does.
    @Test func aRefundedPurchaseInTheReceiptSaysWhy() throws {
        let levels = try h.buy("fx.levels")
        let yearly = try h.buy("fx.plus.yearly")
        _ = try h.session.refund(levels.id, reason: .developerIssue)
        _ = try h.session.refund(yearly.id, reason: .other)
        let answer = try verify()
        let inApp = try #require(answer["receipt"]?["in_app"]?.arrayValue)
        let byID = Dictionary(uniqueKeysWithValues: inApp.map { ($0["transaction_id"]?.stringValue ?? "", $0) })
        #expect(byID[String(levels.id)]?["cancellation_reason"] == .string("1"))
        #expect(byID[String(yearly.id)]?["cancellation_reason"] == .string("0"))
        #expect(byID[String(levels.id)]?["cancellation_date_ms"] != nil)
        let latest = try #require(answer["latest_receipt_info"]?.arrayValue)
        #expect(
            latest.first { $0["transaction_id"] == .string(String(levels.id)) }?["cancellation_reason"] == .string("1"))
    }

    // MARK: 7. Every field is one of Apple's, billing retry and grace as Apple writes them.

    @Test func everyFieldWrittenIsOneApplesDictionaryLists() throws {
        try h.buy("fx.coins")
        try h.buy("fx.levels", token: "7E3F4A1C-0B2D-4C5E-8F60-123456789ABC")
        let yearly = try h.buy("fx.plus.yearly")
        _ = try h.session.refund(yearly.id, reason: .developerIssue)
        try h.buy("fx.plus.monthly")
        _ = try h.session.increasePrice("fx.plus.monthly", to: Decimal(string: "9.99")!, requiresConsent: true)
        let answer = try verify()
        for entry in try #require(answer["pending_renewal_info"]?.arrayValue) {
            #expect(keys(entry).isSubset(of: Self.pendingRenewalInfoFields), "\(keys(entry))")
        }
        for entry in try #require(answer["latest_receipt_info"]?.arrayValue) {
            #expect(keys(entry).isSubset(of: Self.latestReceiptInfoFields), "\(keys(entry))")
        }
        for entry in try #require(answer["receipt"]?["in_app"]?.arrayValue) {
            #expect(keys(entry).isSubset(of: Self.inAppFields), "\(keys(entry))")
        }
    }

    /// In the Billing Grace Period: `expiration_intent` 2, `is_in_billing_retry_period` 1 and
    /// the grace period's end in three forms; past it, billing retry without the grace date.
    @Test func graceAndBillingRetryAreWrittenAsAppleWritesThem() throws {
        _ = try h.session.setSetting(.billingRetry, to: "true")
        _ = try h.session.setSetting(.gracePeriod, to: "true")
        let bought = try h.buy("fx.plus.monthly")
        h.clock.advance(days: 8)
        let grace = try renewal()
        #expect(
            keys(grace) == [
                "auto_renew_product_id", "product_id", "original_transaction_id", "auto_renew_status",
                "expiration_intent", "is_in_billing_retry_period", "grace_period_expires_date",
                "grace_period_expires_date_ms", "grace_period_expires_date_pst",
            ])
        #expect(grace["original_transaction_id"] == .string(String(bought.id)))
        #expect(grace["auto_renew_status"] == .string("1") && grace["expiration_intent"] == .string("2"))
        #expect(grace["is_in_billing_retry_period"] == .string("1"))
        h.clock.advance(days: 20)
        let retry = try renewal()
        #expect(retry["expiration_intent"] == .string("2") && retry["is_in_billing_retry_period"] == .string("1"))
        #expect(retry["grace_period_expires_date"] == nil)
        h.clock.advance(days: 60)
        let expired = try renewal()
        #expect(expired["expiration_intent"] == .string("2") && expired["is_in_billing_retry_period"] == .string("0"))
        #expect(expired["auto_renew_status"] == .string("0"))
    }
}
