import Foundation
import IAPSimKit

extension Runner {
    /// `approve`, `decline`, `resolve`, `finish`: Xcode's Transaction Manager actions.
    func lifecycle(_ command: Command, id: UInt64) throws -> ExitCode {
        let (catalog, session) = try catalogAndSession()
        var members: [(String, JSON)] = [("id", .int(id))]
        let message: String
        switch command {
        case .approve:
            let transaction = try session.approve(id, in: catalog)
            members += [("result", .string("purchased")), ("transaction", .transaction(transaction))]
            message =
                "Approved: transaction \(id) for \(transaction.productID) is purchased and delivered through Transaction.updates."
        case .decline:
            let pending = try session.decline(id)
            members += [("result", .string("declined")), ("productID", .string(pending.productID))]
            message = "Declined: \(pending.productID) was not bought; nothing was charged."
        case .resolve:
            switch try session.resolve(id, in: catalog) {
            case .purchased(let transaction):
                members += [("result", .string("purchased")), ("transaction", .transaction(transaction))]
                message = "Resolved: transaction \(id) for \(transaction.productID) is purchased."
            case .recovered(let renewal):
                members += [("result", .string("renewed")), ("transaction", .transaction(renewal))]
                let until = renewal.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
                message =
                    "Resolved the billing issue: \(renewal.productID) renewed as transaction \(renewal.id)\(until)."
            }
        case .finish:
            try session.finish(id)
            members += [("result", .string("finished"))]
            message = "Finished transaction \(id); StoreKit stops re-delivering it."
        default:
            preconditionFailure("not a lifecycle command: \(command)")
        }
        if options.json { emit(.object(members)) } else { console.out(message) }
        return .success
    }

    /// `refund <tx>`: `SKTestSession.refundTransaction(identifier:)`.
    func refund(_ id: UInt64, reason: String) throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let transaction = try session.refund(id, reason: Transaction.RevocationReason(rawValue: reason) ?? .other)
        if options.json {
            emit(.object([("result", .string("refunded")), ("transaction", .transaction(transaction))]))
        } else {
            let what: String
            switch transaction.productType {
            case .consumable:
                what = "\(transaction.purchasedQuantity) taken off the balance of \(transaction.productID)"
            case .autoRenewable: what = "\(transaction.productID) is revoked and will not renew"
            default: what = "\(transaction.productID) is revoked"
            }
            console.out("Refunded transaction \(id) (\(reason)): \(what).")
        }
        return .success
    }

    /// `cancel-subscription`, `expire`, `renew`.
    func cancelSubscription(_ productID: String, undo: Bool) throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let info = undo ? try session.resumeSubscription(productID) : try session.cancelSubscription(productID)
        let expiry = try session.status().subscriptions.first { $0.originalID == info.originalID }?.expirationDate
        if options.json {
            emit(
                .object([
                    ("productID", .string(productID)), ("willAutoRenew", .bool(info.willAutoRenew)),
                    ("expirationDate", .date(expiry)),
                ]))
        } else if undo {
            console.out("Auto-renew is on again for \(productID).")
        } else {
            console.out(
                "Auto-renew is off for \(productID): it stays active until \(expiry.map(ISO8601Date.string) ?? "its period ends"), then expires."
            )
        }
        return .success
    }

    func expire(_ productID: String) throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let info = try session.expireSubscription(productID)
        if options.json {
            emit(
                .object([
                    ("productID", .string(productID)), ("state", .string("expired")),
                    ("originalID", .int(info.originalID)),
                ]))
        } else {
            console.out("\(productID) expired now and will not renew.")
        }
        return .success
    }

    func renew(_ productID: String) throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let transaction = try session.renewSubscription(productID)
        if options.json {
            emit(.object([("result", .string("renewed")), ("transaction", .transaction(transaction))]))
        } else {
            let until = transaction.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
            console.out("Renewed \(transaction.productID) as transaction \(transaction.id)\(until).")
        }
        return .success
    }
}
