import Foundation
import IAPSimJSON

// A subscription chain's stored form (`PurchaseState+JSON` says how the state's JSON is
// written and read).

extension RenewalInfo {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("originalID", .int(originalID)), ("subscriptionGroupID", .string(subscriptionGroupID)),
            ("currentProductID", .string(currentProductID)), ("autoRenewProductID", .string(autoRenewProductID)),
            ("willAutoRenew", .bool(willAutoRenew)), ("autoRenewPeriod", .string(autoRenewPeriod.iso8601)),
            ("autoRenewPrice", .string(autoRenewPrice.plainString)), ("currency", .string(currency)),
            ("storefrontCountryCode", .string(storefrontCountryCode)),
            ("introductoryPeriodsRemaining", .int(introductoryPeriodsRemaining)),
            ("introductoryPrice", .optional(introductoryPrice?.plainString)),
            ("introductoryPeriod", .optional(introductoryPeriod?.iso8601)),
            // The phase in the fields it was kept in before it was one value (see `StoredPhase`).
            ("isInBillingRetry", .bool(isInBillingRetry)), ("billingRetryEndDate", .date(billingRetryEndDate)),
            ("gracePeriodExpirationDate", .date(gracePeriodExpirationDate)),
            ("expirationReason", .optional(expirationReason?.rawValue)),
            ("expirationNotified", .bool(phase.hasEnded)),
            ("offerType", .optional(offerType?.rawValue)), ("offerID", .optional(offerID)),
            ("pendingOffer", pendingOffer.map(\.json) ?? .null),
            (
                "commitment",
                commitment.map {
                    .object([
                        ("period", .string($0.period.iso8601)), ("endDate", .date($0.endDate)), ("paid", .int($0.paid)),
                        ("price", .optional($0.price?.plainString)),
                    ])
                } ?? .null
            ),
        ]
        if let start = recentSubscriptionStartDate { members.append(("recentSubscriptionStartDate", .date(start))) }
        if cancelledInGracePeriod { members.append(("cancelledInGracePeriod", .bool(true))) }
        if !extensions.isEmpty {
            members.append(
                (
                    "extensions",
                    .array(
                        extensions.map {
                            .object([
                                ("requestIdentifier", .string($0.requestIdentifier)), ("date", .date($0.date)),
                                ("webOrderLineItemID", .string($0.webOrderLineItemID)),
                                ("effectiveDate", .date($0.effectiveDate)),
                            ])
                        })
                ))
        }
        if let increase = priceIncrease {
            members.append(
                (
                    "priceIncrease",
                    .object([
                        ("newPrice", .string(increase.newPrice.plainString)),
                        ("requiresConsent", .bool(increase.requiresConsent)),
                        ("status", .string(increase.status.rawValue)), ("date", .date(increase.date)),
                    ])
                ))
        }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            originalID: try r.required("originalID").uint64(),
            subscriptionGroupID: try r.required("subscriptionGroupID").string(),
            currentProductID: try r.required("currentProductID").string(),
            autoRenewProductID: try r.required("autoRenewProductID").string(),
            willAutoRenew: try r.required("willAutoRenew").bool(),
            autoRenewPeriod: try r.required("autoRenewPeriod").period(),
            autoRenewPrice: try r.required("autoRenewPrice").decimal(), currency: try r.required("currency").string(),
            storefrontCountryCode: try r.required("storefrontCountryCode").string(),
            introductoryPeriodsRemaining: try r.optional("introductoryPeriodsRemaining")?.nonNegativeInt() ?? 0,
            introductoryPrice: try r.optional("introductoryPrice")?.decimal(),
            introductoryPeriod: try r.optional("introductoryPeriod")?.period(),
            phase: try StoredPhase(r).phase,
            expirationReason: try r.optional("expirationReason")?.raw(ExpirationReason.self))
        offerType = try r.optional("offerType")?.raw(Transaction.OfferType.self)
        offerID = try r.optional("offerID")?.string()
        pendingOffer = try r.optional("pendingOffer").map(RenewalInfo.PendingOffer.init)
        commitment = try r.optional("commitment").map { c throws(Reader.Failure) in
            RenewalInfo.Commitment(
                period: try c.required("period").period(), endDate: try c.required("endDate").date(),
                paid: try c.required("paid").positiveInt(), price: try c.optional("price")?.decimal())
        }
        recentSubscriptionStartDate = try r.optional("recentSubscriptionStartDate")?.date()
        cancelledInGracePeriod = try r.optional("cancelledInGracePeriod")?.bool() ?? false
        extensions =
            try r.optional("extensions")?.array { e throws(Reader.Failure) in
                RenewalExtension(
                    requestIdentifier: try e.required("requestIdentifier").string(),
                    date: try e.required("date").date(),
                    webOrderLineItemID: try e.required("webOrderLineItemID").string(),
                    effectiveDate: try e.required("effectiveDate").date())
            } ?? []
        priceIncrease = try r.optional("priceIncrease").map { increase throws(Reader.Failure) in
            PriceIncrease(
                newPrice: try increase.required("newPrice").decimal(),
                requiresConsent: try increase.required("requiresConsent").bool(),
                status: try increase.required("status").raw(PriceIncrease.Status.self),
                date: try increase.required("date").date())
        }
    }
}

/// A renewal's phase as the state file keeps it: the four fields it was kept in before it was
/// one value, so files of every schema read, and iapsim before the phase reads this one's.
/// The two forms are apart: `RenewalInfo.Phase` may change without the file changing.
///
/// `revoked` is written as `expired` (both ended and notified); the snapshot tells them apart
/// by the chain's latest transaction (`PurchaseState.init`).
struct StoredPhase {
    var isInBillingRetry: Bool
    var billingRetryEndDate: Date?
    var gracePeriodExpirationDate: Date?
    var expirationNotified: Bool

    init(_ r: Reader) throws(Reader.Failure) {
        isInBillingRetry = try r.optional("isInBillingRetry")?.bool() ?? false
        billingRetryEndDate = try r.optional("billingRetryEndDate")?.date()
        gracePeriodExpirationDate = try r.optional("gracePeriodExpirationDate")?.date()
        expirationNotified = try r.optional("expirationNotified")?.bool() ?? false
    }

    /// A grace period date outside billing retry was never written (each step that left
    /// billing retry cleared it), and means nothing there.
    var phase: RenewalInfo.Phase {
        if isInBillingRetry {
            guard let grace = gracePeriodExpirationDate else { return .inBillingRetry(ends: billingRetryEndDate) }
            return .inGracePeriod(expires: grace, retryEnds: billingRetryEndDate)
        }
        return expirationNotified ? .expired : .active
    }
}

extension RenewalInfo.PendingOffer {
    var json: JSONValue {
        .object([
            ("type", .string(type.rawValue)), ("id", .optional(id)), ("paymentMode", .string(paymentMode.rawValue)),
            ("period", .string(period.iso8601)), ("periodCount", .int(periodCount)),
            ("price", .string(price.plainString)),
        ])
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            type: try r.required("type").raw(Transaction.OfferType.self), id: try r.optional("id")?.string(),
            paymentMode: try r.required("paymentMode").raw(SubscriptionOffer.PaymentMode.self),
            period: try r.required("period").period(), periodCount: try r.required("periodCount").positiveInt(),
            price: try r.required("price").decimal())
    }
}
