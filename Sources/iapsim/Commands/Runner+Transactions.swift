import Foundation
import IAPSimKit

extension Runner {
    /// `transactions`: the account's history, like Xcode's Transaction Manager, with the
    /// pending purchases that have no transaction yet.
    func transactions(productID: String?, state filter: TransactionFilter?) throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let (state, moment) = try session.snapshot()
        let now = moment.now
        let unfinished = Set(state.simulation.unfinishedTransactionIDs)
        let rows = try session.store.transactions().filter { transaction in
            guard productID == nil || transaction.productID == productID else { return false }
            guard let filter else { return true }
            return Self.matches(transaction, filter, now: now, unfinished: unfinished)
        }
        let pending = state.simulation.pending.filter {
            (productID == nil || $0.productID == productID) && (filter == nil || filter == .pending)
        }
        if options.json {
            emit(
                .object([
                    (
                        "transactions",
                        .array(
                            rows.map { transaction in
                                guard case .object(var members) = JSON.transaction(transaction) else { return .null }
                                members.append(("state", .string(Self.state(of: transaction, now: now).rawValue)))
                                members.append(("isFinished", .bool(!unfinished.contains(transaction.id))))
                                return .object(members)
                            })
                    ),
                    ("pending", .array(pending.map(JSON.pending))),
                ]))
            return .success
        }
        guard !rows.isEmpty || !pending.isEmpty else {
            console.out("No transactions.")
            return .success
        }
        var table = [["ID", "ORIGINAL", "PRODUCT", "STATE", "PURCHASED", "EXPIRES"]]
        for transaction in rows {
            var state = Self.state(of: transaction, now: now).rawValue
            if transaction.reason == .renewal { state += ", renewal" }
            if unfinished.contains(transaction.id) { state += ", unfinished" }
            table.append([
                String(transaction.id), String(transaction.originalID), TerminalText.escaped(transaction.productID),
                state,
                ISO8601Date.string(transaction.purchaseDate), transaction.expirationDate.map(ISO8601Date.string) ?? "-",
            ])
        }
        for purchase in pending {
            table.append([
                String(purchase.id), "-", TerminalText.escaped(purchase.productID),
                "pending (\(purchase.reason.rawValue))",
                ISO8601Date.string(purchase.requestDate), "-",
            ])
        }
        TerminalText.table(table).forEach(console.out)
        return .success
    }

    private static func matches(
        _ transaction: IAPSimKit.Transaction, _ filter: TransactionFilter, now: Date, unfinished: Set<UInt64>
    ) -> Bool {
        switch filter {
        case .unfinished: unfinished.contains(transaction.id)
        case .pending: false
        default: state(of: transaction, now: now) == filter
        }
    }

    /// What a transaction is now: refunded, replaced by another level, past its expiry, or purchased.
    static func state(of transaction: IAPSimKit.Transaction, now: Date) -> TransactionFilter {
        if transaction.revocationDate != nil { return .revoked }
        if transaction.isUpgraded { return .upgraded }
        if let end = transaction.expirationDate, end <= now { return .expired }
        return .purchased
    }
}
