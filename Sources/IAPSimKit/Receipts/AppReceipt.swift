import Foundation
import IAPSimCrypto
import IAPSimJSON

/// The app receipt's payload, as Apple lays it out ("Receipt Fields", "Validating receipts on
/// the device"): a SET of attributes, each a SEQUENCE of the field type (INTEGER), a version
/// (INTEGER) and the value (an OCTET STRING holding the DER value). Strings are UTF8String,
/// dates IA5String in RFC 3339 (`2026-01-01T00:00:00Z`), flags and numbers INTEGER. Types
/// Apple does not document are ignored when read, as Apple tells apps to.
public struct AppReceipt: Sendable, Equatable {
    /// The field types ("Receipt Fields": "ASN.1 Field Type").
    public enum FieldType {
        /// Not in Apple's table: the receipt type, which Apple's receipts carry and verifyReceipt
        /// returns as `receipt_type` (`ProductionSandbox`, `Production`).
        public static let receiptType: Int64 = 0
        public static let bundleID: Int64 = 2
        public static let applicationVersion: Int64 = 3
        public static let opaqueValue: Int64 = 4
        public static let sha1Hash: Int64 = 5
        public static let creationDate: Int64 = 12
        public static let inAppPurchase: Int64 = 17
        public static let originalApplicationVersion: Int64 = 19
        public static let expirationDate: Int64 = 21
        public static let quantity: Int64 = 1701
        public static let productID: Int64 = 1702
        public static let transactionID: Int64 = 1703
        public static let purchaseDate: Int64 = 1704
        public static let originalTransactionID: Int64 = 1705
        public static let originalPurchaseDate: Int64 = 1706
        public static let subscriptionExpirationDate: Int64 = 1708
        public static let webOrderLineItemID: Int64 = 1711
        public static let cancellationDate: Int64 = 1712
        public static let subscriptionTrialPeriod: Int64 = 1713
        public static let subscriptionIntroductoryPricePeriod: Int64 = 1719
        public static let promotionalOfferID: Int64 = 1721
    }

    /// One in-app purchase receipt (field type 17).
    public struct InAppPurchase: Sendable, Equatable {
        public var quantity: Int64
        public var productID: String
        public var transactionID: String
        public var originalTransactionID: String
        public var purchaseDate: Date
        public var originalPurchaseDate: Date
        /// Auto-renewable subscriptions only.
        public var subscriptionExpirationDate: Date?
        /// Auto-renewable subscriptions only.
        public var webOrderLineItemID: Int64?
        /// A refunded transaction's refund date.
        public var cancellationDate: Date?
        /// Auto-renewable subscriptions only: the period is a free trial.
        public var isTrialPeriod: Bool?
        /// Auto-renewable subscriptions only: the period is an introductory price.
        public var isInIntroOfferPeriod: Bool?
        public var promotionalOfferID: String?

        public init(
            quantity: Int64, productID: String, transactionID: String, originalTransactionID: String,
            purchaseDate: Date, originalPurchaseDate: Date
        ) {
            self.quantity = quantity
            self.productID = productID
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.purchaseDate = purchaseDate
            self.originalPurchaseDate = originalPurchaseDate
        }
    }

    /// Type 0: `ProductionSandbox` or `Production` (or iapsim's `Xcode`, `LocalTesting`).
    public var receiptType: String
    public var bundleID: String
    public var applicationVersion: String
    public var opaqueValue: [UInt8]
    public var sha1Hash: [UInt8]
    public var creationDate: Date
    public var originalApplicationVersion: String
    /// Volume Purchase Program receipts only; nil otherwise.
    public var expirationDate: Date?
    public var inAppPurchases: [InAppPurchase]

    public init(
        receiptType: String, bundleID: String, applicationVersion: String, opaqueValue: [UInt8], sha1Hash: [UInt8],
        creationDate: Date, originalApplicationVersion: String, expirationDate: Date? = nil,
        inAppPurchases: [InAppPurchase]
    ) {
        self.receiptType = receiptType
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.opaqueValue = opaqueValue
        self.sha1Hash = sha1Hash
        self.creationDate = creationDate
        self.originalApplicationVersion = originalApplicationVersion
        self.expirationDate = expirationDate
        self.inAppPurchases = inAppPurchases
    }

    /// The receipt type Apple writes for an environment: `ProductionSandbox` for the sandbox.
    public static func receiptType(for environment: AppStoreEnvironment) -> String {
        switch environment {
        case .sandbox: "ProductionSandbox"
        case .production: "Production"
        case .xcode, .localTesting: environment.rawValue
        }
    }

    /// Whether the receipt comes from the production App Store (the rest are test receipts).
    public var isProduction: Bool { receiptType == "Production" }

    /// Apple, "Validating receipts on the device": the SHA-1 of the device identifier's 16
    /// bytes, the opaque value and the bundle identifier's DER (the type 2 attribute's value).
    public static func hash(deviceIdentifier: UUID, opaqueValue: [UInt8], bundleID: String) -> [UInt8] {
        let uuid = deviceIdentifier.uuid
        let device = withUnsafeBytes(of: uuid) { Array($0) }
        return SHA1.hash(device + opaqueValue + utf8String(bundleID))
    }

    // MARK: Writing

    /// The payload's DER: the SET of attributes, in field-type order.
    public var payload: [UInt8] {
        var writer = DERWriter()
        writer.writeSet { set in
            Self.attribute(FieldType.receiptType, Self.utf8String(receiptType), to: &set)
            Self.attribute(FieldType.bundleID, Self.utf8String(bundleID), to: &set)
            Self.attribute(FieldType.applicationVersion, Self.utf8String(applicationVersion), to: &set)
            Self.attribute(FieldType.opaqueValue, opaqueValue, to: &set)
            Self.attribute(FieldType.sha1Hash, sha1Hash, to: &set)
            Self.attribute(FieldType.creationDate, Self.ia5Date(creationDate), to: &set)
            for purchase in inAppPurchases {
                Self.attribute(FieldType.inAppPurchase, purchase.payload, to: &set)
            }
            Self.attribute(FieldType.originalApplicationVersion, Self.utf8String(originalApplicationVersion), to: &set)
            if let expirationDate {
                Self.attribute(FieldType.expirationDate, Self.ia5Date(expirationDate), to: &set)
            }
        }
        return writer.bytes
    }

    static func attribute(_ type: Int64, _ value: [UInt8], to writer: inout DERWriter) {
        writer.writeSequence { sequence in
            sequence.writeInteger(type)
            sequence.writeInteger(1)
            sequence.writeOctetString(value)
        }
    }

    static func utf8String(_ text: String) -> [UInt8] {
        var writer = DERWriter()
        writer.writeUTF8String(text)
        return writer.bytes
    }

    static func integer(_ value: Int64) -> [UInt8] {
        var writer = DERWriter()
        writer.writeInteger(value)
        return writer.bytes
    }

    /// An IA5String of the RFC 3339 date, in whole seconds and UTC.
    static func ia5Date(_ date: Date) -> [UInt8] {
        var writer = DERWriter()
        writer.writeElement(tag: DERTag.ia5String, contents: Array(ISO8601Date.string(date).utf8))
        return writer.bytes
    }
}

extension AppReceipt.InAppPurchase {
    typealias Field = AppReceipt.FieldType

    /// The in-app purchase receipt's own SET of attributes.
    var payload: [UInt8] {
        var writer = DERWriter()
        writer.writeSet { set in
            AppReceipt.attribute(Field.quantity, AppReceipt.integer(quantity), to: &set)
            AppReceipt.attribute(Field.productID, AppReceipt.utf8String(productID), to: &set)
            AppReceipt.attribute(Field.transactionID, AppReceipt.utf8String(transactionID), to: &set)
            AppReceipt.attribute(Field.purchaseDate, AppReceipt.ia5Date(purchaseDate), to: &set)
            AppReceipt.attribute(Field.originalTransactionID, AppReceipt.utf8String(originalTransactionID), to: &set)
            AppReceipt.attribute(Field.originalPurchaseDate, AppReceipt.ia5Date(originalPurchaseDate), to: &set)
            if let subscriptionExpirationDate {
                AppReceipt.attribute(
                    Field.subscriptionExpirationDate, AppReceipt.ia5Date(subscriptionExpirationDate), to: &set)
            }
            if let webOrderLineItemID {
                AppReceipt.attribute(Field.webOrderLineItemID, AppReceipt.integer(webOrderLineItemID), to: &set)
            }
            if let cancellationDate {
                AppReceipt.attribute(Field.cancellationDate, AppReceipt.ia5Date(cancellationDate), to: &set)
            }
            if let isTrialPeriod {
                AppReceipt.attribute(Field.subscriptionTrialPeriod, AppReceipt.integer(isTrialPeriod ? 1 : 0), to: &set)
            }
            if let isInIntroOfferPeriod {
                AppReceipt.attribute(
                    Field.subscriptionIntroductoryPricePeriod, AppReceipt.integer(isInIntroOfferPeriod ? 1 : 0),
                    to: &set)
            }
            if let promotionalOfferID {
                AppReceipt.attribute(Field.promotionalOfferID, AppReceipt.utf8String(promotionalOfferID), to: &set)
            }
        }
        return writer.bytes
    }
}
