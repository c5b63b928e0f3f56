import Foundation
import IAPSimKit

extension JSON {
    /// A transaction with StoreKit 2's field names; dates ISO 8601 UTC, the price a decimal string.
    static func transaction(_ t: IAPSimKit.Transaction) -> JSON {
        var members: [(String, JSON)] = [
            ("id", .int(t.id)),
            ("originalID", .int(t.originalID)),
            ("productID", .string(t.productID)),
            ("productType", .string(t.productType.rawValue)),
            ("purchaseDate", .date(t.purchaseDate)),
            ("originalPurchaseDate", .date(t.originalPurchaseDate)),
            ("purchasedQuantity", .int(t.purchasedQuantity)),
            ("expirationDate", .date(t.expirationDate)),
            ("revocationDate", .date(t.revocationDate)),
            ("revocationReason", .optional(t.revocationReason?.rawValue)),
            ("subscriptionGroupID", .optional(t.subscriptionGroupID)),
            ("isUpgraded", .bool(t.isUpgraded)),
            ("reason", .string(t.reason.rawValue)),
        ]
        if let offer = t.offerType {
            members.append(("offerType", .string(offer.rawValue)))
            members.append(("offerPaymentMode", .optional(t.offerPaymentMode?.rawValue)))
        }
        members += [
            ("price", .string(t.price)),
            ("currency", .string(t.currency)),
            ("storefrontCountryCode", .string(t.storefrontCountryCode)),
        ]
        return .object(members)
    }

    static func period(_ period: SubscriptionPeriod) -> JSON {
        .object([
            ("value", .int(period.value)),
            ("unit", .string(["D": "day", "W": "week", "M": "month", "Y": "year"][period.unit.rawValue]!)),
            ("iso8601", .string(period.iso8601)),
        ])
    }
}
