import IAPSimJSON
import IAPSimKit

/// One option: its spellings, whether it takes a value, its help and, for completion, the
/// values it takes. A command lists its own in its `CommandSpec`; the ones every command
/// takes are `GlobalOptions.specs`. The parser, help, the man page, the completions and the
/// reference all read these specs.
struct OptionSpec: Sendable {
    var name: String
    var short: Character?
    /// The placeholder for its value, e.g. `DIR`; nil for a flag.
    var valueName: String?
    var help: String
    /// The values it takes when they are a known set, for completion; empty otherwise.
    var values: [String] = []
    /// May be given more than once, each value kept (`--header`).
    var repeatable = false
    /// What its value names, for completion (a folder, a file, a product).
    var completes: Completes = .values

    enum Completes: Sendable {
        case values, directory, file, productID
    }

    var takesValue: Bool { valueName != nil }

    /// A flag: `--drain`.
    static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help)
    }

    /// An option with a value: `--timeout SECONDS`.
    static func value(
        _ name: String, _ valueName: String, help: String, values: [String] = [], repeatable: Bool = false,
        completes: Completes = .values
    ) -> OptionSpec {
        OptionSpec(
            name: name, valueName: valueName, help: help, values: values, repeatable: repeatable, completes: completes)
    }

    /// `--catalog DIR`, `-y, --yes`.
    var synopsis: String {
        let long = "--" + name + (valueName.map { " " + $0 } ?? "")
        return short.map { "-\($0), " + long } ?? long
    }
}

/// Options several commands share, spelled once.
extension OptionSpec {
    /// `--port N` of a server command.
    static let port = OptionSpec(
        name: "port", valueName: "N", help: "The port to listen on; 0 (the default) picks a free one.")
    static let certs = value(
        "certs", "DIR", help: "The test certificates to sign with (default: STATE_DIR/certs). Env: IAPSIM_CERTS_DIR.",
        completes: .directory)
    static let environment = value(
        "environment", "ENV", help: "Signed data's environment: Sandbox, Production, Xcode or LocalTesting.",
        values: AppStoreEnvironment.allCases.map(\.rawValue))
    static let jws = flag("jws", help: "With --json: each transaction's jwsRepresentation, signed.")
    static let yes = flag("yes", short: "y", help: "Do not ask for confirmation.")
    static let appAccountToken = value(
        "app-account-token", "UUID",
        help: "Product.PurchaseOption.appAccountToken: a UUID the transaction and its renewals carry.")
}

extension OptionSpec {
    /// `{"name", "short", "valueName", "help", "values", "repeatable"}`: the option as its
    /// help page gives it, for a script or a form built from it (the page's "Buy with
    /// options" is `help buy --json`'s options). `valueName` is null for a flag; `values`
    /// is empty when any value is taken.
    var json: JSONValue {
        .object([
            ("name", .string(name)), ("short", .optional(short.map { String($0) })),
            ("valueName", .optional(valueName)), ("help", .string(help)),
            ("values", .array(values.map(JSONValue.string))), ("repeatable", .bool(repeatable)),
        ])
    }
}
