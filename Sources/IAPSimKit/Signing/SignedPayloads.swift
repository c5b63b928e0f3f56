import Foundation
import IAPSimJSON

/// What every signed payload carries besides its own fields: who the app is, where the data
/// comes from, and when it was signed (the simulated now).
public struct SigningContext: Sendable, Equatable {
    public var bundleID: String
    /// The app's Apple ID, required by `Production` verifiers of app transactions and
    /// notifications.
    public var appAppleID: Int64?
    public var environment: AppStoreEnvironment
    public var signedDate: Date
    /// `appTransactionId`: one per account and app.
    public var appTransactionID: String

    public init(
        bundleID: String, appAppleID: Int64?, environment: AppStoreEnvironment, signedDate: Date,
        appTransactionID: String
    ) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
        self.signedDate = signedDate
        self.appTransactionID = appTransactionID
    }
}

/// The decoded payloads of Apple's signed data, field for field as Apple documents them
/// ("JWSTransactionDecodedPayload", "JWSRenewalInfoDecodedPayload", "AppTransaction"):
/// dates in integer milliseconds since 1970, prices in integer milliunits, enumerations as
/// Apple's strings and numbers.
public enum SignedPayloads {
    /// Milliseconds since 1970, as signed data dates are.
    public static func milliseconds(_ date: Date) -> JSONValue {
        .number(String(Int64((date.timeIntervalSince1970 * 1000).rounded())))
    }

    /// A price in milliunits of its currency: 0.99 → 990.
    public static func milliunits(_ price: Decimal) -> JSONValue {
        var scaled = price * 1000
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        return .number(rounded.plainString)
    }

    /// JWSTransactionDecodedPayload for `transaction`.
    public static func transaction(_ transaction: Transaction, context: SigningContext) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("transactionId", .string(String(transaction.id))),
            ("originalTransactionId", .string(String(transaction.originalID))),
        ]
        if let lineItem = transaction.webOrderLineItemID { members.append(("webOrderLineItemId", .string(lineItem))) }
        members += [
            ("bundleId", .string(context.bundleID)),
            ("productId", .string(transaction.productID)),
        ]
        if let group = transaction.subscriptionGroupID {
            members.append(("subscriptionGroupIdentifier", .string(group)))
        }
        members += [
            ("purchaseDate", milliseconds(transaction.purchaseDate)),
            ("originalPurchaseDate", milliseconds(transaction.originalPurchaseDate)),
        ]
        if let expires = transaction.expirationDate { members.append(("expiresDate", milliseconds(expires))) }
        members += [
            ("quantity", .int(transaction.purchasedQuantity)),
            ("type", .string(transaction.productType.appleName)),
            ("inAppOwnershipType", .string(transaction.ownershipType.appleName)),
            ("signedDate", milliseconds(context.signedDate)),
        ]
        if let revoked = transaction.revocationDate {
            // revocationReason: 1 an issue in the app, 0 any other reason; a refund's only.
            if let reason = transaction.revocationReason {
                members.append(("revocationReason", .int(reason == .developerIssue ? 1 : 0)))
            }
            members.append(("revocationDate", milliseconds(revoked)))
            // revocationType: how it was revoked; a refund's revocationPercentage in milliunits,
            // 100000 for all of it (Apple, "revocationType", "revocationPercentage": present
            // for refunded transactions).
            if let kind = transaction.revocationKind {
                members.append(("revocationType", .string(kind.rawValue)))
                switch kind {
                case .proratedRefund:
                    members.append(("revocationPercentage", milliunits(transaction.revocationPercentage ?? 100)))
                case .fullRefund:
                    members.append(("revocationPercentage", .int(RevocationPercentage.fullMilliunits)))
                case .familyRevocation: break
                }
            }
        }
        if transaction.isUpgraded { members.append(("isUpgraded", .bool(true))) }
        if let offer = transaction.offerType {
            members.append(("offerType", .int(offer.appleNumber)))
            if let id = transaction.offerID { members.append(("offerIdentifier", .string(id))) }
            if let mode = transaction.offerPaymentMode {
                members.append(("offerDiscountType", .string(mode.appleName)))
            }
            if let period = transaction.offerPeriod { members.append(("offerPeriod", .string(period.iso8601))) }
        }
        let storefront = Storefront.named(transaction.storefrontCountryCode)
        members += [
            ("environment", .string(context.environment.rawValue)),
            ("storefront", .string(transaction.storefrontCountryCode)),
            ("storefrontId", .string(storefront?.appleID ?? "")),
            ("transactionReason", .string(transaction.reason.appleName)),
            ("currency", .string(transaction.currency)),
            ("price", milliunits(transaction.price)),
            ("appTransactionId", .string(context.appTransactionID)),
        ]
        if let token = transaction.appAccountToken { members.append(("appAccountToken", .string(token.appleString))) }
        if transaction.productType == .autoRenewable {
            // App Store Server API 1.21 ("billingPlanType", "TransactionCommitmentInfo"): how
            // this period is paid; a monthly payment says where it is in its commitment.
            let plan = transaction.billingPlanType ?? .billedUpfront
            members.append(("billingPlanType", .string(plan.rawValue)))
            if let commitment = transaction.commitmentInfo {
                members.append(
                    (
                        "commitmentInfo",
                        .object([
                            ("billingPeriodNumber", .int(commitment.billingPeriodNumber)),
                            ("commitmentExpiresDate", milliseconds(commitment.expirationDate)),
                            ("commitmentPrice", milliunits(commitment.price)),
                            ("totalBillingPeriods", .int(commitment.totalBillingPeriods)),
                        ])
                    ))
            }
        }
        return .object(members)
    }

    /// JWSRenewalInfoDecodedPayload for the chain `info`, whose newest transaction is `latest`.
    /// - Parameter eligibleWinBackOfferIDs: `StoreSession.eligibleWinBackOfferIDs` of the chain.
    public static func renewalInfo(
        _ info: RenewalInfo, latest: Transaction, state: AccountStatus.SubscriptionStatus.State,
        context: SigningContext, eligibleWinBackOfferIDs: [String] = []
    ) -> JSONValue {
        let facts = info.facts(latest: latest, state: state)
        var members: [(String, JSONValue)] = []
        if let reason = facts.expirationReason { members.append(("expirationIntent", .int(expirationIntent(reason)))) }
        members += [
            ("originalTransactionId", .string(String(info.originalID))),
            ("autoRenewProductId", .string(info.autoRenewProductID)),
            ("productId", .string(info.currentProductID)),
            ("autoRenewStatus", .int(facts.willAutoRenew ? 1 : 0)),
            ("isInBillingRetryPeriod", .bool(info.isInBillingRetry)),
        ]
        if let grace = facts.gracePeriodExpirationDate {
            members.append(("gracePeriodExpiresDate", milliseconds(grace)))
        }
        if let status = facts.priceIncreaseStatus.jwsValue { members.append(("priceIncreaseStatus", .int(status))) }
        if let offer = facts.offer {
            members.append(("offerType", .int(offer.type.appleNumber)))
            if let mode = offer.paymentMode { members.append(("offerDiscountType", .string(mode.appleName))) }
            if let period = offer.period { members.append(("offerPeriod", .string(period.iso8601))) }
            if let id = offer.id { members.append(("offerIdentifier", .string(id))) }
        }
        members.append(("signedDate", milliseconds(context.signedDate)))
        members.append(("environment", .string(context.environment.rawValue)))
        members.append(("recentSubscriptionStartDate", milliseconds(facts.recentSubscriptionStartDate)))
        if let renewal = facts.renewalDate { members.append(("renewalDate", milliseconds(renewal))) }
        members += [
            ("currency", .string(info.currency)),
            ("renewalPrice", milliunits(facts.renewalPrice)),
            ("eligibleWinBackOfferIds", .array(eligibleWinBackOfferIDs.map(JSONValue.string))),
            ("appTransactionId", .string(context.appTransactionID)),
        ]
        // The token the app or its server tied to the purchase: the chain's (Apple,
        // "JWSRenewalInfoDecodedPayload", appAccountToken).
        if let token = latest.appAccountToken { members.append(("appAccountToken", .string(token.appleString))) }
        members += commitmentMembers(info, autoRenews: facts.willAutoRenew)
        return .object(members)
    }

    /// App Store Server API 1.21: `renewalBillingPlanType`, how the next renewal is paid —
    /// `MONTHLY` while the chain is in a commitment, `BILLED_UPFRONT` otherwise — and, in a
    /// commitment, `commitmentInfo` (RenewalCommitmentInfo): the commitment that follows this
    /// one at `commitmentRenewalDate` (this one's end), its product, whether it will start
    /// (`commitmentAutoRenewStatus`, the chain's auto-renew status), its plan and its price.
    static func commitmentMembers(_ info: RenewalInfo, autoRenews: Bool) -> [(String, JSONValue)] {
        guard let commitment = info.commitment else {
            return [("renewalBillingPlanType", .string(BillingPlanType.billedUpfront.rawValue))]
        }
        let monthly = BillingPlanType.monthly.rawValue
        return [
            ("renewalBillingPlanType", .string(monthly)),
            (
                "commitmentInfo",
                .object([
                    ("commitmentAutoRenewProductId", .string(info.autoRenewProductID)),
                    ("commitmentAutoRenewStatus", .int(autoRenews ? 1 : 0)),
                    ("commitmentRenewalBillingPlanType", .string(monthly)),
                    ("commitmentRenewalDate", milliseconds(commitment.endDate)),
                    (
                        "commitmentRenewalPrice",
                        milliunits(commitment.price ?? info.autoRenewPrice * Decimal(commitment.payments))
                    ),
                ])
            ),
        ]
    }

    /// `expirationIntent`: 1 the customer cancelled, 2 billing error, 3 no consent to a price
    /// increase, 4 product not available, 5 other.
    static func expirationIntent(_ reason: RenewalInfo.ExpirationReason) -> Int {
        switch reason {
        case .autoRenewDisabled: 1
        case .billingError: 2
        case .didNotConsentToPriceIncrease: 3
        case .productUnavailable: 4
        case .unknown: 5
        }
    }

    /// The app transaction (`AppTransaction`, JWSAppTransactionDecodedPayload): the app was
    /// first downloaded at `originalPurchaseDate`.
    public static func appTransaction(originalPurchaseDate: Date, context: SigningContext) -> JSONValue {
        var members: [(String, JSONValue)] = [("receiptType", .string(context.environment.rawValue))]
        if let id = context.appAppleID { members.append(("appAppleId", .number(String(id)))) }
        members += [
            ("bundleId", .string(context.bundleID)),
            ("applicationVersion", .string("1")),
            ("versionExternalIdentifier", .int(0)),
            ("receiptCreationDate", milliseconds(context.signedDate)),
            ("originalPurchaseDate", milliseconds(originalPurchaseDate)),
            ("originalApplicationVersion", .string("1")),
            ("deviceVerification", .string("")),
            ("deviceVerificationNonce", .string("00000000-0000-0000-0000-000000000000")),
            ("appTransactionId", .string(context.appTransactionID)),
            ("originalPlatform", .string("iOS")),
            ("signedDate", milliseconds(context.signedDate)),
        ]
        return .object(members)
    }
}
