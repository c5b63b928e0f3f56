import IAPSimKit

extension Runner {
    /// `reset --local` is a reinstall; `reset` erases the account too.
    func reset(localOnly: Bool, assumeYes: Bool) throws -> ExitCode {
        let session = try session()
        let path = session.store.location.statePath
        if localOnly {
            try session.resetApp()
            if options.json {
                emit(.object([("reset", .string("local")), ("stateFile", .string(path))]))
            } else {
                console.out(
                    "Forgot the app's record; the account keeps its purchases. Run 'iapsim restore' to get them back.")
            }
            return .success
        }
        guard confirm("Erase all purchases and the account's history in \(path)?", assumeYes: assumeYes) else {
            console.notice("Cancelled: nothing was erased.")
            return .cancelled
        }
        try session.resetAll()
        if options.json {
            emit(.object([("reset", .string("all")), ("stateFile", .string(path))]))
        } else {
            console.out("Erased \(path).")
        }
        return .success
    }
}
