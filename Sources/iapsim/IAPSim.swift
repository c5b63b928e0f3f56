import IAPSimKit

/// The command-line entry point: parses, runs, reports, and returns the exit status. Only
/// `main.swift` exits.
enum IAPSim {
    static func run(arguments: [String], context: Context, console: Console) -> Int32 {
        var console = console
        do {
            let invocation = try ArgumentParser.parse(arguments)
            console.quiet = invocation.options.quiet
            console.color =
                !invocation.options.noColor && context.variable("NO_COLOR") == nil
                && context.environment["TERM"] != "dumb" && console.outputIsTerminal
            let runner = Runner(options: invocation.options, context: context, console: console)
            return try runner.run(invocation.command).rawValue
        } catch {
            let (code, message) = ErrorReport.describe(error)
            console.error(message)
            return code.rawValue
        }
    }
}
