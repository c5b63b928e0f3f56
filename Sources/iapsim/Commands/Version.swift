import IAPSimKit

/// `iapsim --version`. Not in the registry: the flag makes it, never a command word.
struct Version: CLICommand {
    static let spec = CommandSpec(
        name: "--version", abstract: "Show the version.", discussion: "Prints iapsim's version.", hidden: true)

    /// The release this binary is.
    static let number = "0.1.0"

    init() {}

    init(_ words: ParsedWords) throws(UsageError) {}

    func run(in context: CommandContext) throws -> Report {
        Report(json: .object([("version", .string(Self.number))]), lines: ["iapsim \(Self.number)"])
    }
}
