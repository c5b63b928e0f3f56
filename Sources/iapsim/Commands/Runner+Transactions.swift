import Foundation
import IAPSimJSON
import IAPSimKit

extension Runner {
    /// `transactions`: the account's history, like Xcode's Transaction Manager, with the
    /// pending purchases that have no transaction yet. Written as it is read from the journal:
    /// a history of any length takes the memory of one transaction.
    /// - Parameter withJWS: add each transaction's `jwsRepresentation`, signed.
    func transactions(productID: String?, filter: HistoryFilter?, withJWS: Bool) throws -> Report {
        let (_, session) = try catalogAndSession()
        let history = try session.history(productID: productID, filter: filter)
        let sign = withJWS ? try session.transactionSigner(signer()) : nil
        let context = try session.storeKitContext()
        var report = Report(
            json: .stream { stream in
                var prices: [Decimal: String] = [:]  // equal prices spell the same
                stream.beginObject()
                stream.beginArray("transactions")
                try history.forEach { entry in
                    let price = entry.transaction.price
                    let text = prices[price] ?? price.plainString
                    prices[price] = text
                    let json = entry.transaction.storeKitJSON(context, price: text)
                    guard case .object(var members) = json else { return }
                    members.append(("orderID", .string(entry.transaction.orderID)))
                    members.append(("state", .string(entry.state.rawValue)))
                    members.append(("isFinished", .bool(entry.isFinished)))
                    if let sign { members.append(("jwsRepresentation", .string(sign(entry.transaction)))) }
                    stream.value(.object(members))
                }
                stream.end()
                stream.value(.array(history.pending.map(JSON.pending)), "pending")
                stream.value(.array(history.expiredRequests.map(JSON.pending)), "expiredRequests")
                stream.value(
                    history.verificationError.map(Self.unverified) ?? .object([("result", .string("verified"))]),
                    "verification")
            },
            text: {
                // A first pass over the index alone measures the columns; the second prints.
                let header = ["ID", "ORIGINAL", "PRODUCT", "STATE", "PURCHASED", "EXPIRES"]
                var widths: [Int] = []
                TerminalText.measure(header, into: &widths)
                var rows = 0
                try history.forEachSummary { summary, state, isFinished in
                    TerminalText.measure(
                        Self.cells(
                            id: summary.id, originalID: summary.originalID, productID: summary.productID, state: state,
                            reason: summary.reason, isFinished: isFinished, purchaseDate: summary.purchaseDate,
                            expirationDate: summary.expirationDate), into: &widths)
                    rows += 1
                }
                let pending = history.pending.map(Self.cells) + history.expiredRequests.map(Self.expiredCells)
                for row in pending { TerminalText.measure(row, into: &widths) }
                guard rows > 0 || !pending.isEmpty else { return [.line("No transactions.")] }
                return [
                    .streamedTable(widths: widths) { emit in
                        emit(header)
                        try history.forEach { entry in
                            let transaction = entry.transaction
                            emit(
                                Self.cells(
                                    id: transaction.id, originalID: transaction.originalID,
                                    productID: transaction.productID, state: entry.state, reason: transaction.reason,
                                    isFinished: entry.isFinished, purchaseDate: transaction.purchaseDate,
                                    expirationDate: transaction.expirationDate))
                        }
                        for row in pending { emit(row) }
                    }
                ]
            })
        if let error = history.verificationError {
            report.notes.append(
                "Note: every transaction arrives unverified (\(error.qualifiedName), simulated): "
                    + "VerificationResult.unverified; the app grants none of them.")
        }
        return report
    }

    /// A transaction's row, from its summary (measuring) or from the transaction (printing).
    private static func cells(
        id: UInt64, originalID: UInt64, productID: String, state: TransactionState, reason: Transaction.Reason,
        isFinished: Bool, purchaseDate: Date, expirationDate: Date?
    ) -> [String] {
        var text = state.rawValue
        if reason == .renewal { text += ", renewal" }
        if !isFinished { text += ", unfinished" }
        return [
            String(id), String(originalID), productID, text, ISO8601Date.string(purchaseDate),
            expirationDate.map(ISO8601Date.string) ?? "-",
        ]
    }

    private static func expiredCells(_ request: PendingPurchase) -> [String] {
        [
            String(request.id), "-", request.productID, "declined (askToBuy expired)",
            ISO8601Date.string(request.requestDate), request.expirationDate.map(ISO8601Date.string) ?? "-",
        ]
    }

    private static func cells(_ purchase: PendingPurchase) -> [String] {
        [
            String(purchase.id), "-", purchase.productID, "pending (\(purchase.reason.rawValue))",
            ISO8601Date.string(purchase.requestDate), purchase.expirationDate.map(ISO8601Date.string) ?? "-",
        ]
    }
}
