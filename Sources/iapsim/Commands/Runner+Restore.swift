import IAPSimKit

extension Runner {
    /// `restore`: `restoreCompletedTransactions` / `AppStore.sync()`.
    func restore() throws -> ExitCode {
        let restored = try session().restore()
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
