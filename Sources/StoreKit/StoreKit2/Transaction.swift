import Foundation
import IAPSimJSON
import IAPSimKit

/// StoreKit 2's `Transaction`: a purchase the account made, as the JWS the App Store signed
/// says it (every field below is read from the signed payload's facts).
public struct Transaction: Identifiable, Equatable, Hashable, Sendable, CustomDebugStringConvertible,
    _StoreKitSignedItem
{
    public let id: UInt64
    public let originalID: UInt64
    public let webOrderLineItemID: String?
    public let productID: String
    public let subscriptionGroupID: String?
    public let appBundleID: String
    public let purchaseDate: Date
    public let originalPurchaseDate: Date
    public let expirationDate: Date?
    public let purchasedQuantity: Int
    public let isUpgraded: Bool
    public let offer: Transaction.Offer?
    public let revocationDate: Date?
    public let revocationReason: Transaction.RevocationReason?
    /// How the transaction was revoked; nil when it is not (iOS 26.4).
    public let revocationType: Transaction.RevocationType?
    public let productType: Product.ProductType
    public let appAccountToken: UUID?
    public let environment: AppStore.Environment
    public let reason: Transaction.Reason
    public let storefront: Storefront
    public let price: Decimal?
    public let currency: Locale.Currency?
    public let ownershipType: Transaction.OwnershipType
    public let signedDate: Date
    public let appTransactionID: String
    /// The signed payload, as JSON.
    public let jsonRepresentation: Data
    public let _jws: String

    /// The storefront's country code (deprecated by Apple for `storefront.countryCode`).
    public var storefrontCountryCode: String { storefront.countryCode }
    public var offerType: Transaction.OfferType? { offer?.type }
    public var offerID: String? { offer?.id }
    public var offerPaymentModeStringRepresentation: String? { offer?.paymentMode?.rawValue }
    public var deviceVerification: Data { Data() }
    public var deviceVerificationNonce: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    public var debugDescription: String { String(decoding: jsonRepresentation, as: UTF8.self) }

    public static func == (lhs: Transaction, rhs: Transaction) -> Bool { lhs._jws == rhs._jws }
    public func hash(into hasher: inout Hasher) { hasher.combine(_jws) }

    /// Tells the App Store the app delivered the purchase: it leaves `unfinished` and is not
    /// delivered again at the next launch (`iapsim finish`'s operation).
    /// The status of this transaction's subscription group, the chain it belongs to first;
    /// nil for a product that is not an auto-renewable subscription, or when the status
    /// cannot be had (Apple, "subscriptionStatus").
    public var subscriptionStatus: Product.SubscriptionInfo.Status? {
        get async {
            guard productType == .autoRenewable, let group = subscriptionGroupID,
                let statuses = try? await Product.SubscriptionInfo.status(for: group)
            else { return nil }
            return statuses.first { $0.transaction.unsafePayloadValue.originalID == originalID } ?? statuses.first
        }
    }

    public func finish() async {
        do {
            try StoreRuntime.shared.withStore { _, session in _ = try session.finish(id) }
        } catch {
            // Finishing a finished transaction does nothing on a device either.
        }
    }

    init(_ transaction: IAPSimKit.Transaction, payload: JSONValue, jws: String) {
        id = transaction.id
        originalID = transaction.originalID
        webOrderLineItemID = transaction.webOrderLineItemID
        productID = transaction.productID
        subscriptionGroupID = transaction.subscriptionGroupID
        appBundleID = payload["bundleId"]?.stringValue ?? ""
        purchaseDate = transaction.purchaseDate
        originalPurchaseDate = transaction.originalPurchaseDate
        expirationDate = transaction.expirationDate
        purchasedQuantity = transaction.purchasedQuantity
        isUpgraded = transaction.isUpgraded
        offer = transaction.offerType.map { type in
            Offer(
                id: transaction.offerID, type: OfferType(type),
                paymentMode: transaction.offerPaymentMode.map(Offer.PaymentMode.init),
                period: transaction.offerPeriod.map(Product.SubscriptionPeriod.init))
        }
        revocationDate = transaction.revocationDate
        revocationReason = transaction.revocationReason.map {
            $0 == .developerIssue ? .developerIssue : .other
        }
        revocationType = transaction.revocationKind.map { Transaction.RevocationType(rawValue: $0.rawValue) }
        productType = Product.ProductType(transaction.productType)
        appAccountToken = transaction.appAccountToken
        environment = AppStore.Environment(rawValue: payload["environment"]?.stringValue ?? "Sandbox")
        reason = transaction.reason == .renewal ? .renewal : .purchase
        storefront = Storefront(countryCode: transaction.storefrontCountryCode)
        price = transaction.price
        currency = Locale.Currency(transaction.currency)
        ownershipType = transaction.ownershipType == .familyShared ? .familyShared : .purchased
        signedDate = payload["signedDate"].flatMap(Self.date) ?? Date()
        appTransactionID = payload["appTransactionId"]?.stringValue ?? ""
        jsonRepresentation = Data(payload.bytes(compact: true))
        _jws = jws
    }

    static func date(_ value: JSONValue) -> Date? {
        guard case .number(let text) = value, let milliseconds = Double(text) else { return nil }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }
}

extension Transaction {
    /// `Transaction.Reason`: a purchase or an automatic renewal.
    public struct Reason: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let purchase = Reason(rawValue: IAPSimKit.Transaction.Reason.purchase.appleName)
        public static let renewal = Reason(rawValue: IAPSimKit.Transaction.Reason.renewal.appleName)
    }

    public struct RevocationReason: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let developerIssue = RevocationReason(rawValue: 1)
        public static let other = RevocationReason(rawValue: 0)
    }

    /// `Transaction.RevocationType`: a full or prorated refund, or the end of Family Sharing.
    public struct RevocationType: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let fullRefund = RevocationType(
            rawValue: IAPSimKit.Transaction.RevocationType.fullRefund.rawValue)
        public static let proratedRefund = RevocationType(
            rawValue: IAPSimKit.Transaction.RevocationType.proratedRefund.rawValue)
        public static let familyRevocation = RevocationType(
            rawValue: IAPSimKit.Transaction.RevocationType.familyRevocation.rawValue)
    }

    public struct OwnershipType: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let purchased = OwnershipType(rawValue: IAPSimKit.Transaction.OwnershipType.purchased.appleName)
        public static let familyShared = OwnershipType(
            rawValue: IAPSimKit.Transaction.OwnershipType.familyShared.appleName)
    }

    public struct OfferType: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let introductory = OfferType(IAPSimKit.Transaction.OfferType.introductory)
        public static let promotional = OfferType(IAPSimKit.Transaction.OfferType.promotional)
        public static let code = OfferType(IAPSimKit.Transaction.OfferType.code)
        public static let winBack = OfferType(IAPSimKit.Transaction.OfferType.winBack)

        init(_ type: IAPSimKit.Transaction.OfferType) { self.init(rawValue: type.appleNumber) }
    }

    /// `Transaction.Offer`: the offer a subscription transaction used.
    public struct Offer: Equatable, Hashable, Sendable {
        public let id: String?
        public let type: Transaction.OfferType
        public let paymentMode: Transaction.Offer.PaymentMode?
        public let period: Product.SubscriptionPeriod?

        public struct PaymentMode: RawRepresentable, Equatable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let freeTrial = PaymentMode(SubscriptionOffer.PaymentMode.freeTrial)
            public static let payAsYouGo = PaymentMode(SubscriptionOffer.PaymentMode.payAsYouGo)
            public static let payUpFront = PaymentMode(SubscriptionOffer.PaymentMode.payUpFront)

            init(_ mode: SubscriptionOffer.PaymentMode) { self.init(rawValue: mode.appleName) }
        }
    }
}
