/// Turns the arguments into an `Invocation`: a pure function, no I/O.
///
/// Options may come before or after the command name; `--opt value` and `--opt=value` both
/// work; `--` ends the options, so `iapsim buy -- -odd.id` buys `-odd.id`.
enum ArgumentParser {
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var positionals: [String] = []
        var values: [String: String] = [:]
        var seen: [(spec: OptionSpec, spelling: String)] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals += arguments[index...]
                break
            }
            let spec: OptionSpec
            var inlineValue: String?
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let match = OptionSpec.named(name) else {
                    let known = OptionSpec.all.map { "--" + $0.name }
                    let hint = Suggestion.nearest(to: "--" + name, among: known).map { "; did you mean '\($0)'?" } ?? ""
                    throw UsageError("unknown option '\(argument)'\(hint)", command: commandName(in: positionals))
                }
                spec = match
            } else if argument.hasPrefix("-"), argument.count == 2, let match = OptionSpec.short(argument.last!) {
                spec = match
            } else if argument.hasPrefix("-"), argument.count > 1 {
                throw UsageError("unknown option '\(argument)'", command: commandName(in: positionals))
            } else {
                positionals.append(argument)
                continue
            }
            if spec.takesValue {
                if let inlineValue {
                    values[spec.name] = inlineValue
                } else if index < arguments.count {
                    values[spec.name] = arguments[index]
                    index += 1
                } else {
                    throw UsageError("option '--\(spec.name)' needs a value (\(spec.synopsis))", command: commandName(in: positionals))
                }
                if values[spec.name]!.isEmpty {
                    throw UsageError("option '--\(spec.name)' needs a non-empty value", command: commandName(in: positionals))
                }
            } else if inlineValue != nil {
                throw UsageError("option '--\(spec.name)' takes no value", command: commandName(in: positionals))
            }
            seen.append((spec, argument))
        }

        let options = GlobalOptions(
            catalogDirectory: values["catalog"], storeKitFile: values["storekit"],
            productIDsFile: values["product-ids"], stateDirectory: values["state-dir"],
            locale: values["locale"], json: seen.contains { $0.spec.name == "json" })
        let flags = Set(seen.map(\.spec.name))

        if flags.contains("version") { return Invocation(options: options, command: .version) }
        guard let word = positionals.first else {
            if flags.contains("help") { return Invocation(options: options, command: .help(topic: nil)) }
            throw UsageError("missing command; try 'iapsim list'")
        }
        guard let name = CommandName(word: word) else {
            let words = CommandName.allCases.flatMap { [$0.rawValue] + $0.aliases }
            let hint = Suggestion.nearest(to: word, among: words).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError("unknown command '\(word)'\(hint)")
        }
        if flags.contains("help") { return Invocation(options: options, command: .help(topic: name.rawValue)) }
        for (spec, spelling) in seen {
            if let commands = spec.commands, !commands.contains(name) {
                throw UsageError("'\(spelling)' is not an option of '\(name.rawValue)'", command: name)
            }
        }
        let arguments = Array(positionals.dropFirst())
        let command: Command
        switch name {
        case .listProducts:
            try expect(arguments, count: 0, for: name)
            command = .listProducts
        case .buy:
            guard let productID = arguments.first else {
                throw UsageError("missing product identifier: iapsim buy <product-id>", command: name)
            }
            try expect(arguments, count: 1, for: name)
            command = .buy(
                productID: productID, quantity: try quantity(values["quantity"]), assumeYes: flags.contains("yes"))
        case .restore:
            try expect(arguments, count: 0, for: name)
            command = .restore
        case .status:
            try expect(arguments, count: 0, for: name)
            command = .status
        case .reset:
            try expect(arguments, count: 0, for: name)
            command = .reset(localOnly: flags.contains("local"), assumeYes: flags.contains("yes"))
        case .help:
            if arguments.count > 1 { throw UsageError("unexpected argument '\(arguments[1])'", command: name) }
            command = .help(topic: arguments.first)
        }
        return Invocation(options: options, command: command)
    }

    /// StoreKit allows 1–10 of a consumable in one payment (`SKMutablePayment.quantity`).
    static let quantityRange = 1...10

    private static func quantity(_ text: String?) throws(UsageError) -> Int {
        guard let text else { return 1 }
        guard let value = Int(text), quantityRange.contains(value) else {
            throw UsageError("--quantity \(text): expected a whole number from 1 to 10", command: .buy)
        }
        return value
    }

    private static func expect(_ arguments: [String], count: Int, for name: CommandName) throws(UsageError) {
        if arguments.count > count {
            throw UsageError("unexpected argument '\(arguments[count])'", command: name)
        }
    }

    private static func commandName(in positionals: [String]) -> CommandName? {
        positionals.first.flatMap(CommandName.init(word:))
    }
}
