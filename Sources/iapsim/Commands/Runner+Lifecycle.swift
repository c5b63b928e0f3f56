import Foundation
import IAPSimKit

extension Runner {
    /// `approve`: `SKTestSession.approveAskToBuyTransaction(identifier:)`.
    func approve(_ id: UInt64) throws -> Report {
        let (catalog, session) = try catalogAndSession()
        let transaction = try session.approve(id, in: catalog)
        return Report(
            json: .object([("id", .int(id)), ("result", .string("purchased")), ("transaction", .transaction(transaction))]),
            lines: [
                "Approved: transaction \(id) for \(transaction.productID) is purchased and delivered through Transaction.updates."
            ])
    }

    /// `decline`: `declineAskToBuyTransaction(identifier:)`.
    func decline(_ id: UInt64) throws -> Report {
        let (_, session) = try catalogAndSession()
        let pending = try session.decline(id)
        return Report(
            json: .object([("id", .int(id)), ("result", .string("declined")), ("productID", .string(pending.productID))]),
            lines: ["Declined: \(pending.productID) was not bought; nothing was charged."])
    }

    /// `resolve`: `resolveIssueForTransaction(identifier:)`.
    func resolve(_ id: UInt64) throws -> Report {
        let (catalog, session) = try catalogAndSession()
        switch try session.resolve(id, in: catalog) {
        case .purchased(let transaction):
            return Report(
                json: .object([
                    ("id", .int(id)), ("result", .string("purchased")), ("transaction", .transaction(transaction)),
                ]),
                lines: ["Resolved: transaction \(id) for \(transaction.productID) is purchased."])
        case .recovered(let renewal):
            let until = renewal.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
            return Report(
                json: .object([("id", .int(id)), ("result", .string("renewed")), ("transaction", .transaction(renewal))]),
                lines: ["Resolved the billing issue: \(renewal.productID) renewed as transaction \(renewal.id)\(until)."])
        }
    }

    /// `finish`: `Transaction.finish()`.
    func finish(_ id: UInt64) throws -> Report {
        let (_, session) = try catalogAndSession()
        try session.finish(id)
        return Report(
            json: .object([("id", .int(id)), ("result", .string("finished"))]),
            lines: ["Finished transaction \(id); StoreKit stops re-delivering it."])
    }

    /// `refund <tx>`: `SKTestSession.refundTransaction(identifier:)`.
    func refund(_ id: UInt64, reason: IAPSimKit.Transaction.RevocationReason) throws -> Report {
        let (_, session) = try catalogAndSession()
        let transaction = try session.refund(id, reason: reason)
        let what: String
        switch transaction.productType {
        case .consumable:
            what = "\(transaction.purchasedQuantity) taken off the balance of \(transaction.productID)"
        case .autoRenewable: what = "\(transaction.productID) is revoked and will not renew"
        default: what = "\(transaction.productID) is revoked"
        }
        return Report(
            json: .object([("result", .string("refunded")), ("transaction", .transaction(transaction))]),
            lines: ["Refunded transaction \(id) (\(reason.rawValue)): \(what)."])
    }

    /// `cancel-subscription [--undo]`: auto-renew off, or on again.
    func cancelSubscription(_ productID: String, undo: Bool) throws -> Report {
        let (_, session) = try catalogAndSession()
        let change = undo ? try session.resumeSubscription(productID) : try session.cancelSubscription(productID)
        let expiry = change.expirationDate
        return Report(
            json: .object([
                ("productID", .string(productID)), ("willAutoRenew", .bool(change.info.willAutoRenew)),
                ("expirationDate", .date(expiry)),
            ]),
            lines: [
                undo
                    ? "Auto-renew is on again for \(productID)."
                    : "Auto-renew is off for \(productID): it stays active until \(expiry.map(ISO8601Date.string) ?? "its period ends"), then expires."
            ])
    }

    /// `expire`: `SKTestSession.expireSubscription(productIdentifier:)`.
    func expire(_ productID: String) throws -> Report {
        let (_, session) = try catalogAndSession()
        let change = try session.expireSubscription(productID)
        return Report(
            json: .object([
                ("productID", .string(productID)), ("state", .string("expired")),
                ("originalID", .int(change.info.originalID)),
            ]),
            lines: ["\(productID) expired now and will not renew."])
    }

    /// `renew`: `SKTestSession.forceRenewalOfSubscription(productIdentifier:)`.
    func renew(_ productID: String) throws -> Report {
        let (_, session) = try catalogAndSession()
        let transaction = try session.renewSubscription(productID)
        let until = transaction.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
        return Report(
            json: .object([("result", .string("renewed")), ("transaction", .transaction(transaction))]),
            lines: ["Renewed \(transaction.productID) as transaction \(transaction.id)\(until)."])
    }
}
