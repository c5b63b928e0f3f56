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
        guard confirm("Erase all purchases and the account's history in \(path)?", assumeYes: assumeYes) else {
            return Report(status: .cancelled, notes: ["Cancelled: nothing was erased."])
        }
        try session.resetAll()
        return Report(
            json: .object([("reset", .string("all")), ("stateFile", .string(path))]), lines: ["Erased \(path)."])
    }
}
