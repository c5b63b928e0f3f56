import Foundation
import IAPSimJSON

/// The JSON forms of Apple's legacy `verifyReceipt` ("responseBody", "responseBody.Receipt",
/// "responseBody.Latest_receipt_info", "responseBody.Pending_renewal_info"): every value a
/// string except the numeric ids Apple sends as numbers, and every date three times —
/// `…_date` (`2026-01-01 07:00:00 Etc/GMT`), `…_date_ms` (milliseconds since 1970, a
/// string) and `…_date_pst` (`2025-12-31 23:00:00 America/Los_Angeles`).
public enum LegacyReceiptJSON {
    private static let pacific = TimeZone(identifier: "America/Los_Angeles") ?? TimeZone(secondsFromGMT: -8 * 3600)!

    /// The three members of the date `name` (`purchase` gives `purchase_date`, …).
    public static func date(_ name: String, _ date: Date) -> [(String, JSONValue)] {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let local = date.addingTimeInterval(Double(pacific.secondsFromGMT(for: date)))
        return [
            ("\(name)_date", .string(civil(date) + " Etc/GMT")),
            ("\(name)_date_ms", .string(String(milliseconds))),
            ("\(name)_date_pst", .string(civil(local) + " America/Los_Angeles")),
        ]
    }

    /// `2026-01-01 07:00:00`.
    private static func civil(_ date: Date) -> String {
        var text = ISO8601Date.string(date)
        if text.hasSuffix("Z") { text.removeLast() }
        return text.replacingOccurrences(of: "T", with: " ")
    }

    private static func flag(_ value: Bool) -> JSONValue { .string(value ? "true" : "false") }

    /// `responseBody.Receipt`: the receipt's own fields, `in_app` from the receipt sent.
    /// - Parameter cancellationReason: why a purchase the receipt shows cancelled was refunded
    ///   or revoked, as the App Store knows it (the receipt itself holds only the date).
    public static func receipt(
        _ receipt: AppReceipt, originalPurchaseDate: Date, requestDate: Date, appAppleID: Int64?,
        cancellationReason: (AppReceipt.InAppPurchase) -> Transaction.RevocationReason? = { _ in nil }
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("receipt_type", .string(receipt.receiptType)),
            ("adam_id", .int(appAppleID ?? 0)),
            ("app_item_id", .int(appAppleID ?? 0)),
            ("bundle_id", .string(receipt.bundleID)),
            ("application_version", .string(receipt.applicationVersion)),
            ("download_id", .int(0)),
            ("version_external_identifier", .int(0)),
        ]
        members += date("receipt_creation", receipt.creationDate)
        members += date("request", requestDate)
        members += date("original_purchase", originalPurchaseDate)
        members.append(("original_application_version", .string(receipt.originalApplicationVersion)))
        if let expiration = receipt.expirationDate { members += date("expiration", expiration) }
        members.append(
            (
                "in_app",
                .array(
                    receipt.inAppPurchases.map { purchase in
                        inApp(purchase, cancellationReason: cancellationReason(purchase))
                    })
            ))
        return .object(members)
    }

    /// `responseBody.Receipt.In_app`: one in-app purchase receipt as the receipt holds it.
    /// - Parameter cancellationReason: for a cancelled purchase, why (Apple, "cancellation_reason",
    ///   in `In_app` as in `Latest_receipt_info`): "1" an issue in the app, "0" another reason.
    public static func inApp(
        _ purchase: AppReceipt.InAppPurchase, cancellationReason: Transaction.RevocationReason? = nil
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("quantity", .string(String(purchase.quantity))),
            ("product_id", .string(purchase.productID)),
            ("transaction_id", .string(purchase.transactionID)),
            ("original_transaction_id", .string(purchase.originalTransactionID)),
        ]
        members += date("purchase", purchase.purchaseDate)
        members += date("original_purchase", purchase.originalPurchaseDate)
        if let expires = purchase.subscriptionExpirationDate { members += date("expires", expires) }
        if let id = purchase.webOrderLineItemID { members.append(("web_order_line_item_id", .string(String(id)))) }
        if let cancelled = purchase.cancellationDate {
            members += date("cancellation", cancelled)
            if let reason = cancellationReason {
                members.append(("cancellation_reason", .string(reason == .developerIssue ? "1" : "0")))
            }
        }
        members.append(("is_trial_period", flag(purchase.isTrialPeriod ?? false)))
        if let intro = purchase.isInIntroOfferPeriod { members.append(("is_in_intro_offer_period", flag(intro))) }
        if let offer = purchase.promotionalOfferID { members.append(("promotional_offer_id", .string(offer))) }
        return .object(members)
    }

    /// `responseBody.Latest_receipt_info`: a transaction as the App Store holds it now, with
    /// the fields only the server knows (refund reason, ownership, upgrade, group, offer code).
    public static func latestReceiptInfo(_ transaction: Transaction) -> JSONValue {
        guard
            case .object(var members) = inApp(
                AppReceipt.InAppPurchase(transaction), cancellationReason: transaction.revocationReason)
        else { return .null }
        members.append(
            (
                "in_app_ownership_type",
                .string(transaction.ownershipType.appleName)
            ))
        if transaction.isUpgraded { members.append(("is_upgraded", .string("true"))) }
        if let group = transaction.subscriptionGroupID {
            members.append(("subscription_group_identifier", .string(group)))
        }
        if transaction.offerType == .code, let name = transaction.offerID {
            members.append(("offer_code_ref_name", .string(name)))
        }
        if let token = transaction.appAccountToken { members.append(("app_account_token", .string(token.appleString))) }
        return .object(members)
    }

    /// `responseBody.Pending_renewal_info`: one subscription chain's renewal.
    public static func pendingRenewalInfo(
        _ info: RenewalInfo, latest: Transaction, state: AccountStatus.SubscriptionStatus.State
    ) -> JSONValue {
        let facts = info.facts(latest: latest, state: state)
        var members: [(String, JSONValue)] = [
            ("auto_renew_product_id", .string(info.autoRenewProductID)),
            ("product_id", .string(info.currentProductID)),
            ("original_transaction_id", .string(String(info.originalID))),
            ("auto_renew_status", .string(facts.willAutoRenew ? "1" : "0")),
        ]
        if let reason = facts.expirationReason {
            members.append(("expiration_intent", .string(String(SignedPayloads.expirationIntent(reason)))))
        }
        if facts.expirationReason != nil || info.isInBillingRetry {
            members.append(("is_in_billing_retry_period", .string(info.isInBillingRetry ? "1" : "0")))
        }
        if let grace = facts.gracePeriodExpirationDate { members += date("grace_period_expires", grace) }
        if let status = facts.priceIncreaseStatus.jwsValue {
            // Apple, "price_increase_status": "0" while an increase waits for consent, "1" once
            // the customer consented or was notified of one that needs none; and
            // "price_consent_status" only for an increase that asked for consent.
            members.append(("price_increase_status", .string(String(status))))
            if info.priceIncrease?.requiresConsent == true {
                members.append(("price_consent_status", .string(String(status))))
            }
        }
        if let offer = facts.offer {
            if offer.type == .promotional, let id = offer.id { members.append(("promotional_offer_id", .string(id))) }
            if offer.type == .code, let id = offer.id { members.append(("offer_code_ref_name", .string(id))) }
        }
        return .object(members)
    }
}
