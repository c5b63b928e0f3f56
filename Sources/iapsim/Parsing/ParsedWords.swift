import Foundation

/// The words of one command line, sorted by the parser: the command's positional arguments,
/// the values of options that take one, and the flags given. A command's initialiser reads
/// and validates them; every question here that can fail throws the `UsageError` the user
/// reads, naming the command.
struct ParsedWords: Sendable {
    /// The command's name (its canonical one, when an alias was typed).
    var command: String?
    var arguments: [String] = []
    /// Every value given for each option, in order.
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// The value of `--name`, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable `--name`.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether the flag `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Whether `--name` was given at all, as a flag or with a value.
    func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }

    /// A usage error about this command.
    func error(_ message: String) -> UsageError { UsageError(message, command: command) }

    /// Refuses arguments beyond the first `count`.
    func expect(count: Int) throws(UsageError) {
        if arguments.count > count { throw error("unexpected argument '\(arguments[count])'") }
    }

    /// The only argument, named `what` (`product-id`) in the message when it is missing.
    func only(_ what: String) throws(UsageError) -> String {
        guard let first = arguments.first else {
            let label = what.replacingOccurrences(of: "-id", with: " identifier")
            throw error("missing \(label): iapsim \(command ?? "") <\(what)>")
        }
        try expect(count: 1)
        return first
    }

    /// `--port`: the port to listen on, 0 (the OS picks a free one) when not given.
    func port() throws(UsageError) -> UInt16 {
        guard let text = value("port") else { return 0 }
        guard let number = UInt16(text), text.allSatisfy(\.isNumber) else {
            throw error("--port \(text): expected a port from 0 to 65535 (0 picks a free one)")
        }
        return number
    }

    /// The only argument, a transaction identifier.
    func onlyTransactionID() throws(UsageError) -> UInt64 {
        try transactionID(try only("transaction-id"))
    }

    /// `text` as a transaction identifier: a positive whole number, digits only.
    func transactionID(_ text: String) throws(UsageError) -> UInt64 {
        // Digits only, no leading zero: `UInt64("+1")` and "01" would both read as 1.
        guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), text.first != "0", let id = UInt64(text) else {
            var failure = error("'\(text)' is not a transaction identifier (a positive whole number)")
            if text.contains("."), text.contains(where: \.isLetter) { failure.productIDForTransaction = text }
            throw failure
        }
        return id
    }

    /// Refuses each of `options` given together with `context` (`--outside-app`).
    func refuse(_ options: [String], with context: String, because reason: String = "") throws(UsageError) {
        for option in options where has(option) {
            throw error("--\(option) does not go with \(context)\(reason)")
        }
    }
}
