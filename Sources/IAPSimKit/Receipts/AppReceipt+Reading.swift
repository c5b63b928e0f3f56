import Foundation
import IAPSimCrypto
import IAPSimJSON

extension AppReceipt {
    /// Reads a payload: the SET of attributes. Attributes of types Apple does not document are
    /// skipped; a documented one whose value is not of its type makes the payload malformed.
    /// - Throws: `ReceiptError.malformed` saying what was wrong.
    public init(payload bytes: [UInt8]) throws(ReceiptError) {
        var receiptType = ""
        var bundleID: String?
        var applicationVersion = ""
        var opaqueValue: [UInt8] = []
        var sha1Hash: [UInt8] = []
        var creationDate: Date?
        var originalApplicationVersion = ""
        var expirationDate: Date?
        var purchases: [InAppPurchase] = []
        try Self.forEachAttribute(in: bytes, what: "the receipt payload") { type, value throws(ReceiptError) in
            switch type {
            case FieldType.receiptType: receiptType = try Self.string(value, type)
            case FieldType.bundleID: bundleID = try Self.string(value, type)
            case FieldType.applicationVersion: applicationVersion = try Self.string(value, type)
            case FieldType.opaqueValue: opaqueValue = value
            case FieldType.sha1Hash: sha1Hash = value
            case FieldType.creationDate: creationDate = try Self.date(value, type)
            case FieldType.originalApplicationVersion: originalApplicationVersion = try Self.string(value, type)
            case FieldType.expirationDate: expirationDate = try Self.optionalDate(value, type)
            case FieldType.inAppPurchase: purchases.append(try InAppPurchase(payload: value))
            default: break
            }
        }
        guard let bundleID else { throw .malformed("the receipt has no bundle identifier (field type 2)") }
        guard let creationDate else { throw .malformed("the receipt has no creation date (field type 12)") }
        self.init(
            receiptType: receiptType, bundleID: bundleID, applicationVersion: applicationVersion,
            opaqueValue: opaqueValue, sha1Hash: sha1Hash, creationDate: creationDate,
            originalApplicationVersion: originalApplicationVersion, expirationDate: expirationDate,
            inAppPurchases: purchases)
    }

    /// Calls `body` with each attribute's type and value bytes.
    static func forEachAttribute(
        in bytes: [UInt8], what: String, _ body: (Int64, [UInt8]) throws(ReceiptError) -> Void
    ) throws(ReceiptError) {
        do {
            var reader = DERReader(bytes)
            var set = try reader.readSet()
            try reader.finish()
            while !set.isAtEnd {
                var attribute = try set.readSequence()
                let type = try attribute.readInteger()
                _ = try attribute.readInteger()
                let value = try attribute.readOctetString()
                try attribute.finish()
                try body(type, value)
            }
        } catch let error as CryptoError {
            throw .malformed("\(what) is not a SET of attributes: \(error.localizedDescription)")
        } catch let error as ReceiptError {
            throw error
        } catch {
            throw .malformed("\(what): \(error)")
        }
    }

    /// The text of a UTF8String or IA5String value.
    static func string(_ value: [UInt8], _ type: Int64) throws(ReceiptError) -> String {
        do {
            var reader = DERReader(value)
            let text = try reader.readString()
            try reader.finish()
            return text
        } catch {
            throw .malformed("field type \(type) is not a string: \(error.localizedDescription)")
        }
    }

    static func integer(_ value: [UInt8], _ type: Int64) throws(ReceiptError) -> Int64 {
        do {
            var reader = DERReader(value)
            let number = try reader.readInteger()
            try reader.finish()
            return number
        } catch {
            throw .malformed("field type \(type) is not an INTEGER: \(error.localizedDescription)")
        }
    }

    static func date(_ value: [UInt8], _ type: Int64) throws(ReceiptError) -> Date {
        guard let date = try optionalDate(value, type) else {
            throw .malformed("field type \(type) is an empty date")
        }
        return date
    }

    /// An RFC 3339 date in an IA5String; nil for the empty string Apple writes for "none".
    static func optionalDate(_ value: [UInt8], _ type: Int64) throws(ReceiptError) -> Date? {
        let text = try string(value, type)
        if text.isEmpty { return nil }
        guard let date = ISO8601Date.date(text) else {
            throw .malformed("field type \(type) is not an RFC 3339 date: \(text)")
        }
        return date
    }
}

extension AppReceipt.InAppPurchase {
    /// Reads one in-app purchase receipt's SET of attributes.
    init(payload bytes: [UInt8]) throws(ReceiptError) {
        typealias Field = AppReceipt.FieldType
        var quantity: Int64 = 1
        var productID = ""
        var transactionID: String?
        var originalTransactionID: String?
        var purchaseDate: Date?
        var originalPurchaseDate: Date?
        var expires: Date?
        var webOrder: Int64?
        var cancellation: Date?
        var trial: Bool?
        var intro: Bool?
        var offer: String?
        try AppReceipt.forEachAttribute(in: bytes, what: "an in-app purchase receipt") {
            type, value throws(ReceiptError) in
            switch type {
            case Field.quantity: quantity = try AppReceipt.integer(value, type)
            case Field.productID: productID = try AppReceipt.string(value, type)
            case Field.transactionID: transactionID = try AppReceipt.string(value, type)
            case Field.originalTransactionID: originalTransactionID = try AppReceipt.string(value, type)
            case Field.purchaseDate: purchaseDate = try AppReceipt.date(value, type)
            case Field.originalPurchaseDate: originalPurchaseDate = try AppReceipt.optionalDate(value, type)
            case Field.subscriptionExpirationDate: expires = try AppReceipt.optionalDate(value, type)
            case Field.webOrderLineItemID: webOrder = try AppReceipt.integer(value, type)
            case Field.cancellationDate: cancellation = try AppReceipt.optionalDate(value, type)
            case Field.subscriptionTrialPeriod: trial = try AppReceipt.integer(value, type) != 0
            case Field.subscriptionIntroductoryPricePeriod: intro = try AppReceipt.integer(value, type) != 0
            case Field.promotionalOfferID:
                let text = try AppReceipt.string(value, type)
                offer = text.isEmpty ? nil : text
            default: break
            }
        }
        guard let transactionID, let purchaseDate else {
            throw .malformed("an in-app purchase receipt has no transaction identifier or purchase date")
        }
        self.init(
            quantity: quantity, productID: productID, transactionID: transactionID,
            originalTransactionID: originalTransactionID ?? transactionID, purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate ?? purchaseDate)
        subscriptionExpirationDate = expires
        webOrderLineItemID = webOrder
        cancellationDate = cancellation
        isTrialPeriod = trial
        isInIntroOfferPeriod = intro
        promotionalOfferID = offer
    }
}
