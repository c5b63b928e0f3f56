import Foundation
import IAPSimKit

extension Runner {
    /// `transactions`: the account's history, like Xcode's Transaction Manager, with the
    /// pending purchases that have no transaction yet.
    /// - Parameter withJWS: add each transaction's `jwsRepresentation`, signed.
    func transactions(productID: String?, filter: HistoryFilter?, withJWS: Bool) throws -> Report {
        let (_, session) = try catalogAndSession()
        let history = try session.history(productID: productID, filter: filter)
        let signed = withJWS ? try session.signedTransactions(history.entries.map(\.transaction), signer: signer()) : [:]
        return Report(
            json: .stream { stream in
                stream.beginObject()
                stream.beginArray("transactions")
                for entry in history.entries {
                    guard case .object(var members) = JSON.transaction(entry.transaction) else { continue }
                    members.append(("state", .string(entry.state.rawValue)))
                    members.append(("isFinished", .bool(entry.isFinished)))
                    members.append(("orderID", .string(entry.transaction.orderID)))
                    if let jws = signed[entry.transaction.id] { members.append(("jwsRepresentation", .string(jws))) }
                    stream.value(.object(members))
                }
                stream.end()
                stream.value(.array(history.pending.map(JSON.pending)), "pending")
            },
            text: {
                guard !history.entries.isEmpty || !history.pending.isEmpty else { return [.line("No transactions.")] }
                var rows = [["ID", "ORIGINAL", "PRODUCT", "STATE", "PURCHASED", "EXPIRES"]]
                for entry in history.entries {
                    let transaction = entry.transaction
                    var state = entry.state.rawValue
                    if transaction.reason == .renewal { state += ", renewal" }
                    if !entry.isFinished { state += ", unfinished" }
                    rows.append([
                        String(transaction.id), String(transaction.originalID), transaction.productID, state,
                        ISO8601Date.string(transaction.purchaseDate),
                        transaction.expirationDate.map(ISO8601Date.string) ?? "-",
                    ])
                }
                for purchase in history.pending {
                    rows.append([
                        String(purchase.id), "-", purchase.productID, "pending (\(purchase.reason.rawValue))",
                        ISO8601Date.string(purchase.requestDate), "-",
                    ])
                }
                return [.table(rows: rows)]
            })
    }
}
