import IAPSimKit

/// Turns the arguments into an `Invocation`: a pure function, no I/O.
///
/// It finds the command word, sorts the rest into arguments, option values and flags by the
/// command's spec (`CommandSpec.acceptedOptions`), and hands them to the command's
/// initialiser. Options may come before or after the command name; `--opt value` and
/// `--opt=value` both work; `--` ends the options, so `iapsim buy -- -odd.id` buys `-odd.id`.
enum ArgumentParser {
    /// - Parameter commands: the commands it knows (`Registry.commands`; tests add their own).
    static func parse(_ arguments: [String], commands: [any CLICommand.Type] = Registry.commands) throws(UsageError)
        -> Invocation
    {
        let registry = Registry(commands: commands)
        let spec = try commandSpec(in: arguments, registry)
        let words = try sort(arguments, for: spec, registry)
        let options = try GlobalOptions(words)
        if words.flag("version") {
            if let extra = words.command ?? words.arguments.first {
                throw UsageError("unexpected argument '\(extra)' after --version")
            }
            return Invocation(options: options, command: Version())
        }
        guard let spec else {
            if words.flag("help") { return Invocation(options: options, command: Help(topic: nil)) }
            throw UsageError("missing command; try 'iapsim list'")
        }
        if words.flag("help") { return Invocation(options: options, command: Help(topic: .command(spec))) }
        let type = registry.command(named: spec.name)!
        return Invocation(options: options, command: try type.init(words))
    }

    /// The words sorted as `parse` sorts them for the command they name, without building the
    /// command: what the page's server inspects (verbs, options) before it runs anything.
    static func sortedWords(_ arguments: [String], commands: [any CLICommand.Type] = Registry.commands)
        throws(UsageError) -> ParsedWords
    {
        let registry = Registry(commands: commands)
        return try sort(arguments, for: try commandSpec(in: arguments, registry), registry)
    }

    /// The spec of the command the arguments name; nil when they name none. An option's
    /// value is never taken for the command word: whether `--x` takes a value is known from
    /// any command that has it (a test checks that each name means the same everywhere).
    private static func commandSpec(in arguments: [String], _ registry: Registry) throws(UsageError) -> CommandSpec? {
        var index = 0
        // An option no command has, just before the word taken for the command: the word is
        // likely its value (`--acount alice status`), so the option is what to correct.
        var unknownOption: String?
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                guard index < arguments.count else { return nil }
                return try named(arguments[index], registry)
            }
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2).prefix { $0 != "=" })
                let option = registry.anyOption(named: name)
                unknownOption = option == nil ? argument : nil
                if !argument.contains("="), option?.takesValue == true {
                    index += 1
                }
            } else if argument.hasPrefix("-"), argument.count > 1 {
                if argument.count == 2, registry.anyOption(short: argument.last!)?.takesValue == true { index += 1 }
            } else {
                if let unknownOption, registry.command(named: argument) == nil {
                    let known = registry.allOptions.map { "--" + $0.name }
                    let hint =
                        Suggestion.nearest(to: unknownOption, among: known).map { "; did you mean '\($0)'?" } ?? ""
                    throw UsageError("unknown option '\(unknownOption)'\(hint)")
                }
                return try named(argument, registry)
            }
        }
        return nil
    }

    private static func named(_ word: String, _ registry: Registry) throws(UsageError) -> CommandSpec {
        if let type = registry.command(named: word) { return type.spec }
        let hint = Suggestion.nearest(to: word, among: registry.words).map { "; did you mean '\($0)'?" } ?? ""
        throw UsageError("unknown command '\(word)'\(hint)")
    }

    /// Sorts the words by the options `spec` accepts (the global ones when there is no command).
    private static func sort(_ arguments: [String], for spec: CommandSpec?, _ registry: Registry) throws(UsageError)
        -> ParsedWords
    {
        let accepted = spec?.acceptedOptions ?? GlobalOptions.specs
        var words = ParsedWords(command: spec?.name)
        var commandSeen = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                var rest = arguments[index...]
                if !commandSeen, spec != nil { rest = rest.dropFirst() }
                words.arguments += rest
                break
            }
            var inlineValue: String?
            let option: OptionSpec
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let match = accepted.first(where: { $0.name == name }) else {
                    throw unknown(argument, name: name, spec: spec, registry)
                }
                option = match
            } else if argument.hasPrefix("-"), argument.count == 2,
                let match = accepted.first(where: { $0.short == argument.last! })
            {
                option = match
            } else if argument.hasPrefix("-"), argument.count > 1 {
                throw UsageError("unknown option '\(argument)'", command: spec?.name)
            } else {
                if !commandSeen, spec != nil {
                    commandSeen = true
                } else {
                    words.arguments.append(argument)
                }
                continue
            }
            guard option.takesValue else {
                if inlineValue != nil { throw words.error("option '--\(option.name)' takes no value") }
                words.flags.insert(option.name)
                continue
            }
            if words.values[option.name] != nil, !option.repeatable {
                throw words.error("option '--\(option.name)' given twice; it takes one value")
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw words.error("option '--\(option.name)' needs a value (\(option.synopsis))")
            }
            if value.isEmpty { throw words.error("option '--\(option.name)' needs a non-empty value") }
            words.values[option.name, default: []].append(value)
        }
        return words
    }

    /// The error for an option `spec` does not take: another command's, or none at all.
    private static func unknown(_ argument: String, name: String, spec: CommandSpec?, _ registry: Registry)
        -> UsageError
    {
        if let spec, registry.anyOption(named: name) != nil {
            return UsageError("'\(argument)' is not an option of '\(spec.name)'", command: spec.name)
        }
        let known = registry.allOptions.map { "--" + $0.name }
        let hint = Suggestion.nearest(to: "--" + name, among: known).map { "; did you mean '\($0)'?" } ?? ""
        return UsageError("unknown option '\(argument)'\(hint)", command: spec?.name)
    }
}

/// A parsed command line: the options every command shares, and the command, validated.
struct Invocation: Sendable {
    var options: GlobalOptions
    var command: any CLICommand
}
