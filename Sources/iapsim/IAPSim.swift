import IAPSimKit

/// The command-line entry point: parses, runs, renders, and returns the exit status. Only
/// `main.swift` exits.
enum IAPSim {
    static func run(arguments: [String], context: Context, console: Console) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try ArgumentParser.parse(arguments)
        } catch {
            var error = error
            if let product = error.productIDForTransaction,
                let latest = Self.latestTransaction(of: product, arguments: arguments, context: context)
            {
                error.message += "; \(product)'s latest transaction is \(latest)"
            }
            let (code, message) = ErrorReport.describe(error)
            console.error(message)
            return code.rawValue
        }
        return run(invocation, context: context, console: console)
    }

    /// The newest transaction of `productID` in the state the words name (`--state-dir`,
    /// `--account`, else the environment's), for a usage error that got a product identifier
    /// where a transaction identifier goes; nil when there is none or it cannot be read.
    private static func latestTransaction(of productID: String, arguments: [String], context: Context) -> UInt64? {
        func value(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return nil }
            return arguments[index + 1]
        }
        guard
            let location = try? StateLocation.resolve(
                stateDirectory: value("state-dir"), account: value("account"), context: context)
        else { return nil }
        let store = StateStore(location: location)
        guard store.exists else { return nil }
        let session = StoreSession(store: store, now: context.now)
        return (try? session.history(productID: productID).entries())?.last?.transaction.id
    }

    /// Runs a parsed invocation: what `iapsim ui` does with the words of a button, so the page
    /// runs exactly what the command line runs.
    static func run(_ invocation: Invocation, context: Context, console: Console) -> Int32 {
        var console = console
        var status: ExitCode
        var programStatus: Int32?
        do {
            console.quiet = invocation.options.quiet
            console.color =
                !invocation.options.noColor && context.value(of: .noColor) == nil
                && context.value(of: .term) != "dumb" && console.outputIsTerminal
            let commandContext = CommandContext(options: invocation.options, context: context, console: console)
            let report = try commandContext.run(invocation.command)
            programStatus = report.programStatus
            status = try Renderer.render(
                report, json: invocation.options.json, console: console, width: commandContext.width)
        } catch {
            let (code, message) = ErrorReport.describe(error)
            console.error(message)
            status = code
        }
        // The command did its work (a purchase is saved) but its output was lost: say so,
        // with a status of its own, so a script does not take it for a failed purchase.
        if let reason = console.outputFailure() {
            console.error(
                "Error: could not write to standard output: \(reason); what the command did is saved (see 'iapsim status')"
            )
            return ExitCode.ioError.rawValue
        }
        return programStatus ?? status.rawValue
    }
}
