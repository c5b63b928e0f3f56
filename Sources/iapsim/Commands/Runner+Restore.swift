import IAPSimKit

extension Runner {
    /// `restore`: `restoreCompletedTransactions` / `AppStore.sync()`.
    func restore() throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let restored = try session.restore()
        defer { noteUnfinished((try? session.store.read().simulation.unfinishedTransactionIDs) ?? []) }
        if options.json {
            emit(.object([("restored", .array(restored.map(JSON.string))), ("count", .int(restored.count))]))
        } else if restored.isEmpty {
            console.out("No purchases to restore.")
        } else {
            console.out("Restored \(restored.count) purchase\(restored.count == 1 ? "" : "s").")
        }
        return .success
    }
}
