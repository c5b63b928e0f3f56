import IAPSimKit

/// One subcommand: its spec (what help, the man page, the completions and the reference are
/// generated from), a validating initialiser from the parsed words, and a `run` that calls
/// the library and returns a `Report`. The shape of swift-argument-parser's
/// `ParsableCommand`, written by hand. Adding a command is one file and one line in
/// `Registry.commands`.
protocol CLICommand: Sendable {
    static var spec: CommandSpec { get }
    /// Validates the words of one invocation; the message of what it throws is what the user reads.
    init(_ words: ParsedWords) throws(UsageError)
    /// Runs the command: one library operation, whose result the report lays out.
    func run(in context: CommandContext) throws -> Report
    /// Warnings about what the words ask for, printed on standard error before the command
    /// runs (unless `--quiet`): for a command whose output comes while it runs.
    var warnings: [String] { get }
}

extension CLICommand {
    var warnings: [String] { [] }
}

/// What a command is, for the parser and every page generated about it.
struct CommandSpec: Sendable {
    var name: String
    var aliases: [String] = []
    /// One line: what `iapsim help` lists.
    var abstract: String
    /// The words after the command's name in its usage line, e.g. `<product-id> [--quantity N]`;
    /// one line for each form of a command that has several.
    var synopsis: String = ""
    var discussion: String
    /// Its positional arguments, for completion.
    var arguments: [ArgumentSpec] = []
    /// Its own options; the global ones (`GlobalOptions.specs`) come on top.
    var options: [OptionSpec] = []
    var examples: [String] = []
    /// Left out of help, the man page and the completions (`completion products`).
    var hidden = false

    /// `iapsim buy <product-id> [--quantity N] … [options]`.
    var usage: String {
        let alias = aliases.isEmpty ? "" : "   (alias: \(aliases.joined(separator: ", ")))"
        return forms.map { "iapsim \(name) " + ($0.isEmpty ? "" : $0 + " ") + "[options]" }
            .joined(separator: "\n       ") + alias
    }

    /// The synopsis of each form of the command.
    var forms: [String] { synopsis.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// The options it accepts: its own first, then the global ones.
    var acceptedOptions: [OptionSpec] { options + GlobalOptions.specs }

    /// Whether `word` names this command.
    func isNamed(_ word: String) -> Bool { name == word || aliases.contains(word) }
}

/// A positional argument and what kind of word it is: the kind tells completion what to offer.
struct ArgumentSpec: Sendable {
    var name: String
    var kind: Kind

    enum Kind: Sendable, Equatable {
        /// An identifier of the catalog's products.
        case productID
        /// A transaction identifier, a positive whole number.
        case transactionID
        /// An ISO 8601 duration such as P1M.
        case duration
        /// An ISO 8601 date.
        case date
        /// One of a fixed set of words: an action (`clock advance`) or a shell.
        case word([String])
        /// A session setting's key (`settings set KEY`).
        case settingKey
        /// A value for the setting named by the previous word.
        case settingValue
        /// A help topic or a command's name.
        case helpTopic
        /// Anything else: a folder, a JWS, a UUID.
        case text
    }

    init(_ name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }
}
