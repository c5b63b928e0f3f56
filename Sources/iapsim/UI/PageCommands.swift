import Foundation
import IAPSimJSON
import IAPSimKit

/// Runs the words of a button or a read of the page as `iapsim WORDS --json` runs them: the
/// same parser, the same `CLICommand` type, the same library operation, the same JSON. The
/// page's server holds no StoreKit rule: it can only name a command of `Registry.commands`,
/// and only one of `actions` (which change the state) or `reads` (which only look).
struct PageCommands: Sendable {
    /// The commands a button may run: each changes the state the way its command line does.
    /// `accounts` only as `accounts add NAME`: the page adds a customer, never removes one.
    static let actions: Set<String> = [
        "buy", "approve", "decline", "resolve", "finish", "refund", "request-refund", "cancel-subscription",
        "expire", "renew", "price-increase", "trigger", "clock", "settings", "restore", "accounts",
    ]
    /// The commands the page reads its views from, with `--json`, by their names (not aliases).
    static let reads: Set<String> = [
        "list-products", "status", "transactions", "notifications", "clock", "settings", "jws", "trigger",
        "accounts", "help",
    ]
    /// The verbs (a first argument from a fixed list, `clock advance`) the page may give each
    /// command above; any other verb is refused, so a verb added to a command later is off the
    /// page until it is put here. Left out on purpose: `clock exec` runs a program as the user
    /// who started `iapsim ui`; `accounts remove` deletes a customer's history;
    /// `transactions delete` deletes a transaction; `jws decode` reads a file of any path.
    static let verbs: [String: Set<String>] = [
        "clock": ["advance", "set", "freeze", "run", "reset"], "accounts": ["add"], "settings": ["set", "reset"],
        "jws": ["transaction"], "notifications": ["show"],
    ]
    /// Options no words from the page may give: `--certs DIR` makes or reads a signing identity
    /// in any folder (a write outside the state, a change of certificates).
    static let forbiddenOptions: Set<String> = ["certs"]

    /// The options `iapsim ui` was started with (`--state-dir`, `--catalog`, …), which every
    /// command the page runs inherits: words from the page cannot point at another state. The
    /// one global option the page may give is `--account NAME`, the customer its picker
    /// chose: a customer of this same state, named as the command line names one.
    let options: GlobalOptions
    let context: Context

    /// What one command printed: its exit status, its `--json` document (nil when it printed
    /// none, e.g. after a usage error) and its lines on standard error.
    struct Outcome: Sendable {
        var exitCode: Int32
        var output: JSONValue?
        /// The raw `--json` bytes, for a read the page gets as they are.
        var bytes: [UInt8]
        var messages: [String]

        /// `{"exitCode", "output", "messages"}`: what the page's action endpoint answers.
        var json: JSONValue {
            .object([
                ("exitCode", .int(exitCode)), ("output", output ?? .null),
                ("messages", .array(messages.map(JSONValue.string))),
            ])
        }
    }

    /// Why words from the page were not run.
    enum Refusal: Error, Equatable {
        case empty
        /// A command that is not in the allowed set, or none at all.
        case notAllowed(String)
        /// An option that would leave the state `iapsim ui` serves (`--state-dir` …); any
        /// global option but `--account`.
        case globalOption
        case usage(String)

        var message: String {
            switch self {
            case .empty: "expected {\"argv\": [\"command\", \"word\", …]}"
            case .notAllowed(let word): "'\(word)' is not a command the page may run"
            case .globalOption:
                "the page runs commands on the state iapsim ui serves: no global option but --account"
            case .usage(let line): line
            }
        }
    }

    /// Parses `words` and checks the command is one of `allowed` (and takes no global option
    /// but `--account` with a customer's name), without running it.
    func invocation(_ words: [String], allowed: Set<String>) throws(Refusal) -> Invocation {
        guard let first = words.first else { throw .empty }
        // The command word must come first, as the page sends it: no option may hide it.
        guard let type = Registry.command(named: first), allowed.contains(type.spec.name) else {
            throw .notAllowed(first)
        }
        var invocation: Invocation
        do {
            invocation = try ArgumentParser.parse(words)
        } catch {
            throw .usage(error.line)
        }
        // The parse above succeeded, so sorting the same words does too.
        guard let sorted = try? ArgumentParser.sortedWords(words) else { throw .notAllowed(first) }
        try Self.checkVerbAndOptions(sorted, of: type.spec)
        var given = invocation.options
        given.json = false
        given.quiet = false
        given.noColor = false
        // The customer the page's picker chose; the parser has checked its name already
        // (an invalid one is its usage error, exit 64), and so does this, whatever parses it.
        let account = given.account
        given.account = nil
        guard given == GlobalOptions() else { throw .globalOption }
        invocation.options = options
        if let account {
            guard AccountName.isValid(account) else { throw .usage(Self.invalidAccount(account)) }
            invocation.options.account = account
        }
        invocation.options.json = true
        invocation.options.quiet = false
        invocation.options.noColor = true
        return invocation
    }

    /// Refuses a verb of `spec` that `verbs` does not list, and any of `forbiddenOptions`.
    static func checkVerbAndOptions(_ words: ParsedWords, of spec: CommandSpec) throws(Refusal) {
        if let option = forbiddenOptions.first(where: words.has) {
            throw .notAllowed("--\(option)")
        }
        guard case .word = spec.arguments.first?.kind, let verb = words.arguments.first else { return }
        guard verbs[spec.name]?.contains(verb) == true else { throw .notAllowed("\(spec.name) \(verb)") }
    }

    /// The command line's usage error for a customer name it refuses.
    static func invalidAccount(_ name: String) -> String {
        UsageError("--account \(name): not a customer name; use \(AccountName.rule)").line
    }

    /// `--account NAME` for a read of the page's chosen customer, or the usage error (exit 64)
    /// of a name that is not one.
    static func accountWords(_ name: String) throws(Refusal) -> [String] {
        guard AccountName.isValid(name) else { throw .usage(invalidAccount(name)) }
        return ["--account", name]
    }

    /// Runs `words` as `iapsim WORDS --json` would, in this process. Words an allowed command
    /// refuses (a quantity of 11, a price of "abc") answer what the command line prints for
    /// them, its usage error and exit 64, having run nothing.
    func run(_ words: [String], allowed: Set<String>) throws(Refusal) -> Outcome {
        let invocation: Invocation
        do {
            invocation = try self.invocation(words, allowed: allowed)
        } catch {
            guard case .usage(let line) = error else { throw error }
            return Self.usage(line)
        }
        let capture = Capture()
        let console = Console(
            writeOut: { capture.out(Array($0.utf8)) }, writeError: { capture.error($0) }, readLine: { nil },
            inputIsTerminal: false, writeOutBytes: { capture.out($0) })
        let status = IAPSim.run(invocation, context: context, console: console)
        let (bytes, errors) = capture.taken()
        let output = bytes.isEmpty ? nil : try? JSONValue.parse(bytes)
        let messages = errors.split(separator: "\n").map(String.init)
        return Outcome(exitCode: status, output: output, bytes: bytes, messages: messages)
    }
}

extension PageCommands {
    /// What the command line answers to words it refuses: its usage error, exit 64.
    static func usage(_ line: String) -> Outcome {
        Outcome(exitCode: ExitCode.usage.rawValue, output: nil, bytes: [], messages: [line])
    }
}

/// Output captured from a command run for the page; commands may write from one thread only,
/// but the lock keeps it safe whatever they do.
private final class Capture: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var errors = ""

    func out(_ more: [UInt8]) { lock.withLock { bytes += more } }
    func error(_ text: String) { lock.withLock { errors += text } }
    func taken() -> ([UInt8], String) { lock.withLock { (bytes, errors) } }
}
