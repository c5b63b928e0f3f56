import IAPSimKit

extension Runner {
    /// `reset`: what Xcode resets, one part at a time. `--local` is a reinstall,
    /// `--transactions` `SKTestSession.clearTransactions()` (the session stays configured),
    /// `--settings` `resetToDefaultState()` (the transactions stay), and `--all` — or a bare
    /// `reset`, as before there were parts — erases the purchases file.
    func reset(_ scope: ResetScope, assumeYes: Bool) throws -> Report {
        let session = try session()
        let path = session.store.location.statePath
        switch scope {
        case .local:
            try session.resetApp()
            return Report(
                json: .object([("reset", .string("local")), ("stateFile", .string(path))]),
                lines: [
                    "Forgot the app's record; the account keeps its purchases. Run 'iapsim restore' to get them back."
                ])
        case .settings:
            // The catalog's settings block holds the defaults the settings go back to.
            let (_, withCatalog) = try catalogAndSession()
            _ = try withCatalog.resetSettings()
            return Report(
                json: .object([("reset", .string("settings")), ("stateFile", .string(path))]),
                lines: ["Settings are back to their defaults ('iapsim settings' shows them); the transactions stay."])
        case .transactions:
            guard confirm("Delete every transaction in \(path)? The settings and the clock stay.", assumeYes: assumeYes)
            else {
                return Report(status: .cancelled, notes: ["Cancelled: nothing was deleted."])
            }
            let removed = session.store.exists ? try session.clearTransactions() : []
            return Report(
                json: .object([
                    ("reset", .string("transactions")), ("stateFile", .string(path)),
                    ("removed", .array(removed.map(JSON.string))),
                ]),
                lines: [
                    "Deleted every transaction, request and notification; the settings and the clock stay "
                        + "(clearTransactions)."
                ])
        case .all:
            let question =
                session.store.exists && (try? session.store.read()) == nil
                ? "\(path) cannot be read. Erase it and the account's history?"
                : "Erase all purchases, the account's history, the settings and the clock in \(path)?"
            guard confirm(question, assumeYes: assumeYes) else {
                return Report(status: .cancelled, notes: ["Cancelled: nothing was erased."])
            }
            // Works on a state that cannot be parsed too: this is the way out of a corrupt file.
            let removed = try session.resetAll()
            return Report(
                json: .object([
                    ("reset", .string("all")), ("stateFile", .string(path)),
                    ("removed", .array(removed.map(JSON.string))),
                ]),
                lines: removed.isEmpty
                    ? ["Nothing to erase in \(session.store.location.directory)."] : removed.map { "Removed \($0)" })
        }
    }
}
