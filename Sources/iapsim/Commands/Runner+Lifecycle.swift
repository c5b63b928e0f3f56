import Foundation
import IAPSimJSON
import IAPSimKit

extension Runner {
    /// `approve`: `SKTestSession.approveAskToBuyTransaction(identifier:)`.
    func approve(_ id: UInt64) throws -> Report {
        let (catalog, session) = try catalogAndSession()
        let result = try session.approve(id, in: catalog)
        return try Self.completion(of: id, result, session.storeKitContext()) { transaction in
            "Approved: transaction \(transaction.id) for \(transaction.productID) is purchased and delivered through Transaction.updates."
        }
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
        case .interruptedPurchase(let interruptedID, let result):
            return try Self.completion(of: interruptedID, result, session.storeKitContext()) { transaction in
                "Resolved: the interrupted purchase \(interruptedID) completed as transaction \(transaction.id) for "
                    + "\(transaction.productID); the app receives it through Transaction.updates at its next launch."
            }
        case .recovered(let renewal):
            let until = renewal.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
            let context = try session.storeKitContext()
            return Report(
                json: .object([
                    ("id", .int(id)), ("result", .string("renewed")), ("transaction", .transaction(renewal, context)),
                ]),
                lines: ["Resolved the billing issue: \(renewal.productID) renewed as transaction \(renewal.id)\(until)."])
        }
    }

    /// The report of a deferred purchase completed (`approve`, `resolve`): a new transaction,
    /// or what the account held already, which is not charged again.
    /// - Parameter purchased: the line for a new transaction.
    private static func completion(
        of id: UInt64, _ result: StoreSession.PurchaseResult, _ context: StoreKitContext,
        purchased: (IAPSimKit.Transaction) -> String
    ) throws -> Report {
        switch result {
        case .purchased(let transaction):
            let line = purchased(transaction)
            return Report(
                json: .object([
                    ("id", .int(id)), ("result", .string("purchased")),
                    ("transaction", .transaction(transaction, context)),
                ]),
                lines: [line])
        case .redownloaded(let owned), .alreadySubscribed(let owned):
            return Report(
                json: .object([
                    ("id", .int(id)), ("result", .string("alreadyOwned")),
                    ("transaction", .transaction(owned, context)),
                ]),
                lines: [
                    "Completed \(id) without a charge: the account already has \(owned.productID) "
                        + "(transaction \(owned.id)), so nothing was bought twice."
                ])
        case .downgradeScheduled(let current, let productID):
            return Report(
                json: .object([
                    ("id", .int(id)), ("result", .string("scheduled")), ("productID", .string(productID)),
                    ("transaction", .transaction(current, context)),
                ]),
                lines: [
                    "Completed \(id): \(productID) will replace \(current.productID) at the next renewal; nothing was charged now."
                ])
        case .pending, .requestRepeated, .interrupted, .offerScheduled, .cancelled, .failed:
            // The buyer has said yes by now: a purchase completed this way never ends so.
            throw UnexpectedResult(detail: "completing \(id) ended as \(result)")
        }
    }

    /// `transactions delete`: `SKTestSession.deleteTransaction(identifier:)`.
    func deleteTransaction(_ id: UInt64) throws -> Report {
        let (_, session) = try catalogAndSession()
        let deletion = try session.deleteTransaction(id)
        if let request = deletion.request {
            return Report(
                json: .object([
                    ("id", .int(id)), ("result", .string("deleted")), ("productID", .string(request.productID)),
                    ("deletedIDs", .array([.int(id)])),
                ]),
                lines: [
                    "Deleted the \(request.reason == .askToBuy ? "Ask to Buy request" : "interrupted purchase") \(id) "
                        + "for \(request.productID)."
                ])
        }
        let named = deletion.transactions.first { $0.id == id }
        let productID = named?.productID ?? deletion.transactions.first?.productID ?? ""
        let others = deletion.transactions.count - 1
        let children =
            others == 0 ? "" : " and the \(others) later transaction\(others == 1 ? "" : "s") of its subscription"
        var lines = [
            "Deleted transaction \(id) (\(productID))\(children): "
                + "it is gone from the history, the entitlements and the app's record."
        ]
        if let renewal = deletion.renewedAgain.last {
            lines.append(
                "Auto-renew is on, so the App Store renewed the period again as transaction \(renewal.id); "
                    + "'iapsim cancel-subscription \(renewal.productID)' first to end the subscription instead.")
        }
        var members: [(String, JSON)] = [
            ("id", .int(id)), ("result", .string("deleted")), ("productID", .string(productID)),
            ("deletedIDs", .array(deletion.transactions.map { .int($0.id) })),
        ]
        if !deletion.renewedAgain.isEmpty {
            let context = try session.storeKitContext()
            members.append(("renewedAgain", .array(deletion.renewedAgain.map { .transaction($0, context) })))
        }
        return Report(json: .object(members), lines: lines)
    }

    /// `finish`: `Transaction.finish()`.
    func finish(_ id: UInt64) throws -> Report {
        let (_, session) = try catalogAndSession()
        try session.finish(id)
        return Report(
            json: .object([("id", .int(id)), ("result", .string("finished"))]),
            lines: ["Finished transaction \(id); StoreKit stops re-delivering it."])
    }

    /// `refund <tx>`: `SKTestSession.refundTransaction(identifier:)`. StoreKit delivers the
    /// revoked transaction through `Transaction.updates`; the note says so, and what the app's
    /// record did with it.
    func refund(_ id: UInt64, reason: IAPSimKit.Transaction.RevocationReason) throws -> Report {
        let (_, session) = try catalogAndSession()
        let revocation = try session.refundTransaction(id, reason: reason)
        let transaction = revocation.transaction
        let what: String
        switch (transaction.productType, revocation.appRecord) {
        case (.consumable, _):
            what = "\(transaction.purchasedQuantity) taken off the balance of \(transaction.productID)"
        case (.autoRenewable, .kept):
            what = "this period of \(transaction.productID) is revoked; the subscription's current period is not"
        case (.autoRenewable, _): what = "\(transaction.productID) is revoked and will not renew"
        default: what = "\(transaction.productID) is revoked"
        }
        let answered = revocation.request == nil ? "" : ", granting the customer's refund request"
        var report = try Self.revocationReport(
            revocation, result: "refunded", line: "Refunded transaction \(id) (\(reason.rawValue))\(answered): \(what).",
            context: session.storeKitContext())
        if let request = revocation.request { report.addJSON("refundRequest", .refundRequest(request)) }
        return report
    }

    /// `family revoke <tx>`: the organiser stops sharing; the App Store sends REVOKE.
    func familyRevoke(_ id: UInt64) throws -> Report {
        let (_, session) = try catalogAndSession()
        let revocation = try session.revokeFamilySharing(id)
        let transaction = revocation.transaction
        return try Self.revocationReport(
            revocation, result: "revoked",
            line: "Family Sharing of \(transaction.productID) stopped: transaction \(transaction.id) is revoked "
                + "and the entitlement is gone (REVOKE notification queued).",
            context: session.storeKitContext())
    }

    /// A revocation's report: the line, and a note that `Transaction.updates` delivered the
    /// revoked transaction and what the app's record did with it.
    private static func revocationReport(
        _ revocation: StoreSession.Revocation, result: String, line: String, context: StoreKitContext
    ) -> Report {
        let transaction = revocation.transaction
        let reaction: String
        let change: String
        switch revocation.appRecord {
        case .balanceReduced(let count, let balance):
            change = "balanceReduced"
            reaction = "took \(count) back off the balance of \(transaction.productID) (now \(balance))"
        case .productRemoved:
            change = "productRemoved"
            reaction = "removed \(transaction.productID) from its purchased products"
        case .kept:
            change = "kept"
            reaction = "kept \(transaction.productID): another transaction still grants it"
        }
        return Report(
            json: .object([
                ("result", .string(result)), ("transaction", .transaction(transaction, context)),
                ("delivered", .bool(true)), ("appRecord", .string(change)),
            ]),
            lines: [line],
            notes: [
                "Transaction.updates delivered the revoked transaction \(transaction.id); the app's record \(reaction)."
            ])
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
        let context = try session.storeKitContext()
        return Report(
            json: .object([("result", .string("renewed")), ("transaction", .transaction(transaction, context))]),
            lines: ["Renewed \(transaction.productID) as transaction \(transaction.id)\(until)."])
    }
}

/// A result the library's contract rules out: reported as an internal error (exit 70).
struct UnexpectedResult: Error, CustomStringConvertible {
    var detail: String
    var description: String { detail }
}
