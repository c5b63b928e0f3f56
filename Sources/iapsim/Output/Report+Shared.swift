import Foundation
import IAPSimKit

/// Reports several commands share.
extension Report {
    /// The report of a deferred purchase completed (`approve`, `resolve`): a new transaction,
    /// or what the account held already, which is not charged again.
    /// - Parameter purchased: the line for a new transaction.
    static func completion(
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

    /// A revocation's report: the line, and a note that `Transaction.updates` delivered the
    /// revoked transaction and what the app's record did with it.
    static func revocation(
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
}

/// A result the library's contract rules out: reported as an internal error (exit 70).
struct UnexpectedResult: Error, CustomStringConvertible {
    var detail: String
    var description: String { detail }
}

extension JSON {
    /// `{"result": "unverified", "error": …}`: a `VerificationResult` that failed.
    static func unverified(_ error: SimulatedError) -> JSON {
        .object([("result", .string("unverified")), ("error", .error(error))])
    }
}

extension JSON {
    static func refundRequest(_ request: RefundRequest) -> JSON {
        .object([
            ("transactionID", .int(request.transactionID)), ("productID", .string(request.productID)),
            ("requestDate", .date(request.requestDate)), ("reason", .optional(request.reason?.rawValue)),
        ])
    }
}

extension JSON {
    /// The value as indented JSON, a report line for each of its lines: a line of text output
    /// is one line (the console shows a newline inside one as `\u{A}`).
    var indentedLines: [String] { String(decoding: bytes(), as: UTF8.self).split(separator: "\n").map(String.init) }
}
