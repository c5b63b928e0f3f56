import Foundation
import IAPSimJSON
import IAPSimKit

struct Help: CLICommand {
    static let spec = CommandSpec(
        name: "help", abstract: "Show help for a command or topic.",
        synopsis: "[<command> | exit-codes | environment | errors | settings-keys]",
        discussion: """
            Shows help. 'iapsim help <command>' and 'iapsim <command> --help' agree.
            With --json, a command's help also lists its own options, each with its name, short
            name, value name (null for a flag), help line, the values it takes (empty: any) and
            whether it repeats: what a script or a form needs to offer them.
            """,
        arguments: [.init("topic", kind: .helpTopic)],
        options: [],
        examples: ["iapsim help buy", "iapsim help exit-codes", "iapsim help buy --json"])

    let topic: HelpTopic?

    init(topic: HelpTopic?) {
        self.topic = topic
    }

    init(_ words: ParsedWords) throws(UsageError) {
        if words.arguments.count > 1 { throw words.error("unexpected argument '\(words.arguments[1])'") }
        topic = try words.arguments.first.map { word throws(UsageError) in try HelpTopic(word, words) }
    }

    func run(in context: CommandContext) throws -> Report {
        let text = HelpText.page(for: topic)
        var members: [(String, JSONValue)] = [("topic", .optional(topic.map(\.word))), ("text", .string(text))]
        if case .command(let spec) = topic {
            members.append(("options", .array(spec.options.map(\.json))))
        }
        return Report(json: .object(members)).verbatim(text)
    }
}

/// What `iapsim help` can explain.
enum HelpTopic: Sendable {
    case command(CommandSpec)
    case exitCodes, environment, errors, settingKeys
    /// The whole help as a roff man page, for `make man` (not listed in help).
    case manpage
    /// docs/REFERENCE.md, for `make docs` (not listed in help).
    case reference
    /// docs/schemas/transaction.schema.json, for `make docs` (not listed in help).
    case transactionSchema

    /// The topics other than commands, by the word that names them.
    static let named: [(word: String, topic: HelpTopic)] = [
        ("exit-codes", .exitCodes), ("environment", .environment), ("errors", .errors),
        ("settings-keys", .settingKeys),
    ]

    /// The word that names the topic in `iapsim help TOPIC`.
    var word: String {
        switch self {
        case .command(let spec): spec.name
        case .exitCodes: "exit-codes"
        case .environment: "environment"
        case .errors: "errors"
        case .settingKeys: "settings-keys"
        case .manpage: "manpage"
        case .reference: "reference"
        case .transactionSchema: "transaction-schema"
        }
    }

    init(_ word: String, _ words: ParsedWords) throws(UsageError) {
        if let type = Registry.command(named: word) {
            self = .command(type.spec)
        } else if word == "manpage" {
            self = .manpage
        } else if word == "reference" {
            self = .reference
        } else if word == "transaction-schema" {
            self = .transactionSchema
        } else if let topic = Self.named.first(where: { $0.word == word })?.topic {
            self = topic
        } else {
            let topics = Registry.words + Self.named.map(\.word)
            let hint = Suggestion.nearest(to: word, among: topics).map { "; did you mean '\($0)'?" } ?? ""
            throw words.error("no help topic '\(word)'\(hint)")
        }
    }
}
