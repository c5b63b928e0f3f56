import IAPSimKit

extension Runner {
    /// `restore`: `restoreCompletedTransactions` / `AppStore.sync()`.
    func restore() throws -> Report {
        let (_, session) = try catalogAndSession()
        let restoration = try session.restore()
        let restored = restoration.productIDs
        return Report(
            json: .object([("restored", .array(restored.map(JSON.string))), ("count", .int(restored.count))]),
            lines: [
                restored.isEmpty
                    ? "No purchases to restore." : "Restored \(restored.count) purchase\(restored.count == 1 ? "" : "s")."
            ],
            notes: Self.unfinishedNote(restoration.unfinishedTransactionIDs))
    }
}
