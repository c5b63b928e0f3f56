/// A command line iapsim cannot act on. Its text is what the user reads; exit 64.
struct UsageError: Error, Equatable, Sendable {
    var message: String
    /// The command whose help the message points to, if known.
    var command: CommandName?

    init(_ message: String, command: CommandName? = nil) {
        self.message = message
        self.command = command
    }

    /// One line: the problem, then where to read more.
    var line: String {
        let help = command.map { "iapsim \($0.rawValue) --help" } ?? "iapsim --help"
        return "Error: \(message) (see '\(help)')"
    }
}
