import IAPSimKit

extension Runner {
    /// `reset --local` is a reinstall; `reset` erases the account too.
    func reset(localOnly: Bool, assumeYes: Bool) throws -> Report {
        let session = try session()
        let path = session.store.location.statePath
        if localOnly {
            try session.resetApp()
            return Report(
                json: .object([("reset", .string("local")), ("stateFile", .string(path))]),
                lines: [
                    "Forgot the app's record; the account keeps its purchases. Run 'iapsim restore' to get them back."
                ])
        }
        let question =
            session.store.exists && (try? session.store.read()) == nil
                ? "\(path) cannot be read. Erase it and the account's history?"
                : "Erase all purchases and the account's history in \(path)?"
        guard confirm(question, assumeYes: assumeYes) else {
            return Report(status: .cancelled, notes: ["Cancelled: nothing was erased."])
        }
        // Works on a state that cannot be parsed too: this is the way out of a corrupt file.
        let removed = try session.resetAll()
        return Report(
            json: .object([
                ("reset", .string("all")), ("stateFile", .string(path)), ("removed", .array(removed.map(JSON.string))),
            ]),
            lines: removed.isEmpty ? ["Nothing to erase in \(session.store.location.directory)."] : removed.map { "Removed \($0)" })
    }
}
