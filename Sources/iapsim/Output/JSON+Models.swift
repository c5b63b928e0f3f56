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

extension JSON {
    static func error(_ error: SimulatedError) -> JSON {
        .object([
            ("name", .string(error.name)),
            ("domain", .string(error.domain.rawValue)),
            ("code", error.code.map { JSON.int($0) } ?? .null),
        ])
    }

    static func pending(_ pending: PendingPurchase) -> JSON {
        .object([
            ("id", .int(pending.id)),
            ("productID", .string(pending.productID)),
            ("productType", .string(pending.productType.rawValue)),
            ("purchasedQuantity", .int(pending.quantity)),
            ("reason", .string(pending.reason.rawValue)),
            ("requestDate", .date(pending.requestDate)),
        ])
    }
}
