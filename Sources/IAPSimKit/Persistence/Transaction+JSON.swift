import Foundation
import IAPSimJSON

// A transaction's and a pending purchase's stored form (`PurchaseState+JSON` says how the
// state's JSON is written and read).

extension Transaction {
    /// The stored form: a journal line, a snapshot's entry, a notification's record. Internal
    /// to persistence; the public form is `storeKitJSON` (`Transaction+StoreKit.swift`), written
    /// on its own. Keys are StoreKit 2's field names, `id` first, so a line reads plainly.
    var json: JSONValue { json(price: price.plainString) }

    /// The same, with the price already spelled as `plainString` spells it: a listing spells
    /// each distinct price once (spelling a `Decimal` takes a microsecond).
    func json(price text: String) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .int(id)),
            ("originalID", .int(originalID)),
            ("productID", .string(productID)),
            ("productType", .string(productType.rawValue)),
            ("purchaseDate", .date(purchaseDate)),
            ("originalPurchaseDate", .date(originalPurchaseDate)),
            ("purchasedQuantity", .int(purchasedQuantity)),
            ("expirationDate", .date(expirationDate)),
            ("revocationDate", .date(revocationDate)),
            ("revocationReason", .optional(revocationReason?.rawValue)),
        ]
        // Written only for a prorated refund, so other lines read as before.
        if let revocationPercentage {
            members.append(("revocationPercentage", .string(revocationPercentage.plainString)))
        }
        members += [
            ("subscriptionGroupID", .optional(subscriptionGroupID)),
            ("isUpgraded", .bool(isUpgraded)),
            ("reason", .string(reason.rawValue)),
        ]
        if let offerType {
            members.append(("offerType", .string(offerType.rawValue)))
            members.append(("offerPaymentMode", .optional(offerPaymentMode?.rawValue)))
            if let offerID { members.append(("offerID", .string(offerID))) }
            if let offerPeriod { members.append(("offerPeriod", .string(offerPeriod.iso8601))) }
        }
        members += [
            ("price", .string(text)),
            ("currency", .string(currency)),
            ("storefrontCountryCode", .string(storefrontCountryCode)),
        ]
        if let appAccountToken { members.append(("appAccountToken", .string(appAccountToken.appleString))) }
        if let billingPlanType { members.append(("billingPlanType", .string(billingPlanType.rawValue))) }
        if let commitmentInfo {
            members.append(
                (
                    "commitmentInfo",
                    .object([
                        ("billingPeriodNumber", .int(commitmentInfo.billingPeriodNumber)),
                        ("totalBillingPeriods", .int(commitmentInfo.totalBillingPeriods)),
                        ("expirationDate", .date(commitmentInfo.expirationDate)),
                        ("price", .string(commitmentInfo.price.plainString)),
                    ])
                ))
        }
        // Written only when shared, so the lines of bought transactions read as before schema 4.
        if ownershipType == .familyShared { members.append(("ownershipType", .string(ownershipType.rawValue))) }
        if let deletionDate { members.append(("deletionDate", .date(deletionDate))) }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            id: try r.required("id").uint64(), originalID: try r.required("originalID").uint64(),
            productID: try r.required("productID").string(),
            productType: try r.required("productType").raw(ProductType.self),
            purchaseDate: try r.required("purchaseDate").date(),
            originalPurchaseDate: try r.required("originalPurchaseDate").date(),
            purchasedQuantity: try r.optional("purchasedQuantity")?.positiveInt() ?? 1,
            expirationDate: try r.optional("expirationDate")?.date(),
            revocationDate: try r.optional("revocationDate")?.date(),
            revocationReason: try r.optional("revocationReason")?.raw(RevocationReason.self),
            subscriptionGroupID: try r.optional("subscriptionGroupID")?.string(),
            isUpgraded: try r.optional("isUpgraded")?.bool() ?? false,
            reason: try r.optional("reason")?.raw(Reason.self) ?? .purchase,
            price: try r.required("price").decimal(), currency: try r.required("currency").string(),
            storefrontCountryCode: try r.required("storefrontCountryCode").string())
        revocationPercentage = try r.optional("revocationPercentage")?.decimal()
        offerType = try r.optional("offerType")?.raw(OfferType.self)
        offerPaymentMode = try r.optional("offerPaymentMode")?.raw(SubscriptionOffer.PaymentMode.self)
        offerID = try r.optional("offerID")?.string()
        offerPeriod = try r.optional("offerPeriod")?.period()
        appAccountToken = try r.optional("appAccountToken")?.uuid()
        billingPlanType = try r.optional("billingPlanType")?.raw(BillingPlanType.self)
        commitmentInfo = try r.optional("commitmentInfo").map { c throws(Reader.Failure) in
            CommitmentInfo(
                billingPeriodNumber: try c.required("billingPeriodNumber").positiveInt(),
                totalBillingPeriods: try c.required("totalBillingPeriods").positiveInt(),
                expirationDate: try c.required("expirationDate").date(), price: try c.required("price").decimal())
        }
        ownershipType = try r.optional("ownershipType")?.raw(OwnershipType.self) ?? .purchased
        deletionDate = try r.optional("deletionDate")?.date()
    }
}

extension PendingPurchase {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .int(id)), ("productID", .string(productID)), ("productType", .string(productType.rawValue)),
            ("purchasedQuantity", .int(purchasedQuantity)), ("reason", .string(reason.rawValue)),
            ("requestDate", .date(requestDate)),
        ]
        if let appAccountToken { members.append(("appAccountToken", .string(appAccountToken.appleString))) }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        let quantity: Reader
        if let current = try r.optional("purchasedQuantity") {
            quantity = current
        } else {
            quantity = try r.required("quantity")
        }
        self.init(
            id: try r.required("id").uint64(), productID: try r.required("productID").string(),
            productType: try r.required("productType").raw(ProductType.self),
            // Written as `quantity` before 0.2.
            purchasedQuantity: try quantity.positiveInt(),
            reason: try r.required("reason").raw(Reason.self), requestDate: try r.required("requestDate").date())
        appAccountToken = try r.optional("appAccountToken")?.uuid()
    }
}
