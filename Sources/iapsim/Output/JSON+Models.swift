import Foundation
import IAPSimJSON
import IAPSimKit

/// The one JSON type, from the library: `--json` output is built and written with it.
typealias JSON = JSONValue

extension JSON {
    /// A transaction with StoreKit 2's field names and fields; dates ISO 8601 UTC, the price a
    /// decimal string.
    static func transaction(_ t: IAPSimKit.Transaction, _ context: StoreKitContext) -> JSON { t.storeKitJSON(context) }

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

    /// A pending purchase; `appAccountToken` only when the purchase was made with one.
    static func pending(_ pending: PendingPurchase) -> JSON {
        let token: [(String, JSON)] =
            pending.appAccountToken.map { [("appAccountToken", .string($0.appleString))] } ?? []
        return .object(
            [
                ("id", .int(pending.id)),
                ("productID", .string(pending.productID)),
                ("productType", .string(pending.productType.rawValue)),
                ("purchasedQuantity", .int(pending.purchasedQuantity)),
                ("reason", .string(pending.reason.rawValue)),
                ("requestDate", .date(pending.requestDate)),
                ("expirationDate", .date(pending.expirationDate)),
            ] + token)
    }
}
