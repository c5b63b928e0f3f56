/// A command line iapsim cannot act on. Its text is what the user reads; exit 64.
struct UsageError: Error, Equatable, Sendable {
    var message: String
    /// The name of the command whose help the message points to, if known.
    var command: String?
    /// A product identifier given where a transaction identifier goes: the caller may name
    /// the product's latest transaction, which parsing (pure) cannot know.
    var productIDForTransaction: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    /// One line: the problem, then where to read more.
    var line: String {
        let help = command.map { "iapsim \($0) --help" } ?? "iapsim --help"
        return "Error: \(message) (see '\(help)')"
    }
}
