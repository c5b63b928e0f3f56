import Foundation
import Testing

/// docs/JSON.md shows, under each heading that names a command (`## \`iapsim … --json\``), what
/// that command prints. Here the built binary runs each one on the bundled catalog, in a fresh
/// state folder with the clock frozen at the page's date, after the set-up its example needs;
/// the example must have exactly the keys iapsim prints, at every level. Values (dates,
/// identifiers, signatures) may differ. An object with a `"…"` key is shortened: its other keys
/// must be printed; an array shows its first elements.
@Suite struct DocumentedOutputTests {
    struct Example: Sendable, CustomTestStringConvertible {
        let command: String
        let json: String
        var testDescription: String { "iapsim " + command }
    }

    /// What each documented command needs done first, by the command as its heading spells it.
    /// `JWS` in a command stands for what the last set-up step printed.
    static let setUp: [String: [String]] = [
        "list --json": [],
        "buy com.example.app.coins100 --quantity 2 --json": [],
        "buy com.example.app.book --outcome fail=networkError --json": [],
        "buy com.example.app.book --outcome ask-to-buy --json": [],
        "buy com.example.app.gems500 --outcome interrupted --json": [],
        "status --json": threePurchases,
        "restore --json": ["buy com.example.app.pro.monthly --yes", "reset --local --yes"],
        "transactions --json": threePurchases,
        "check --json": [],
        "settings --json": [],
        "server-error 4290000 --count 2 --json": ["server-error delay 2s --endpoint /inApps/v1/subscriptions/*"],
        "clock --json": [],
        "approve 1 --json": ["buy com.example.app.book --outcome ask-to-buy"],
        "transactions delete 1 --json": ["buy com.example.app.coins100 --yes"],
        "refund 1 --reason developerIssue --json": ["buy com.example.app.book --yes"],
        "request-refund 1 --reason UNINTENDED_PURCHASE --json": ["buy com.example.app.coins100 --yes"],
        "price-increase com.example.app.pro.monthly 3.99 --json": [
            "buy com.example.app.coins100 --yes", "buy com.example.app.pro.monthly --yes",
        ],
        "cancel-subscription com.example.app.pro.monthly --json": ["buy com.example.app.pro.monthly --yes"],
        "reset --local --json": [],
        "jws transaction 1 --json": ["buy com.example.app.pro.monthly --yes"],
        "jws decode JWS --json": ["buy com.example.app.pro.monthly --yes", "jws transaction 1"],
        "certs --json": [],
        "notifications --json": aRenewal,
        "accounts --json": [
            "accounts add alice --storefront GBR", "--account alice buy com.example.app.pro.monthly --yes",
        ],
        "trigger REFUND --product com.example.app.book --json": aRenewal,
        "help buy --json": [],
        "--version --json": [],
    ]
    static let threePurchases = [
        "buy com.example.app.coins100 --quantity 2 --yes", "buy com.example.app.book --outcome ask-to-buy",
        "buy com.example.app.pro.monthly --yes",
    ]
    static let aRenewal = ["buy com.example.app.pro.monthly --yes", "clock advance --to 2027-01-08T00:00:00Z"]

    /// The examples of docs/JSON.md, in order; a JSON block outside a command's section is one
    /// with an empty command, which the test below reports.
    static let examples: [Example] = {
        guard let page = try? ReadmeTests.read("docs/JSON.md") else { return [] }
        var examples: [Example] = []
        var command = ""
        var block: [String]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if var lines = block {
                if line == "```" {
                    examples.append(Example(command: command, json: lines.joined(separator: "\n")))
                    block = nil
                } else {
                    lines.append(line)
                    block = lines
                }
            } else if line == "```json" {
                block = []
            } else if line.hasPrefix("## ") {
                command =
                    line.hasPrefix("## `iapsim ") && line.hasSuffix("`")
                    ? String(line.dropFirst("## `iapsim ".count).dropLast()) : ""
            }
        }
        return examples
    }()

    @Test func everyExampleHasItsCommandAndSetUp() {
        let commands = Self.examples.map(\.command)
        #expect(commands.count >= 20, "docs/JSON.md: \(commands.count) examples found")
        #expect(!commands.contains(""), "docs/JSON.md: a JSON example outside a `## `iapsim …`` section")
        #expect(commands.count == Set(commands).count, "docs/JSON.md: a command with two examples")
        let unused = Set(Self.setUp.keys).subtracting(commands).sorted()
        #expect(unused.isEmpty, "a set-up for a command docs/JSON.md does not show: \(unused)")
        let unprepared = Set(commands).subtracting(Self.setUp.keys).sorted()
        #expect(unprepared.isEmpty, "docs/JSON.md shows a command with no set-up here: \(unprepared)")
    }

    @Test(arguments: examples)
    func theExampleHasTheKeysIapsimPrints(_ example: Example) throws {
        let steps = try #require(Self.setUp[example.command], "no set-up for \(example.command)")
        let folder = Harness.temporaryPath("iapsim-json-doc-")
        var printed = ""
        for step in ["clock set 2027-01-01T00:00:00Z", "clock freeze"] + steps {
            let result = try Self.run(step.split(separator: " ").map(String.init), in: folder)
            #expect([0, 3].contains(result.status), "set-up '\(step)' ended in \(result.status)")
            printed = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let words = example.command.split(separator: " ").map { $0 == "JWS" ? printed : String($0) }
        let output = try Self.run(words, in: folder).stdout
        let actual = try JSONSerialization.jsonObject(with: Data(output.utf8), options: .fragmentsAllowed)
        let documented = try JSONSerialization.jsonObject(with: Data(example.json.utf8))
        let differences = Self.keyDifferences(documented: documented, printed: actual)
        #expect(differences.isEmpty, "docs/JSON.md, iapsim \(example.command):\n\(differences.joined(separator: "\n"))")
    }

    @Test func theComparisonFindsMissingExtraAndAbbreviatedKeys() {
        let printed: [String: Any] = ["a": 1, "b": ["c": 2, "d": [["e": 3, "f": 4]]]]
        #expect(Self.keyDifferences(documented: printed, printed: printed).isEmpty)
        #expect(
            Self.keyDifferences(documented: ["a": 1, "b": ["c": 2, "…": "…"], "x": 0], printed: printed) == [
                "$: documented but not printed: x"
            ])
        #expect(
            Self.keyDifferences(documented: ["a": 0, "b": ["c": 0, "d": [["e": 0]]]], printed: printed) == [
                "$.b.d[0]: printed but not documented: f"
            ])
        #expect(
            Self.keyDifferences(documented: ["a": 0, "b": ["c": 0, "d": [["…": 0], ["e": 0]]]], printed: printed) == [
                "$.b.d[1]: documented but not printed"
            ])
    }

    /// Where `documented` and `printed` differ in their keys, one line each; values are not
    /// compared, and where one side is null and the other an object there is nothing to compare.
    static func keyDifferences(documented: Any, printed: Any, at path: String = "$") -> [String] {
        if let documented = documented as? [String: Any], let printed = printed as? [String: Any] {
            let shown = Set(documented.keys).subtracting(["…"])
            var differences: [String] = []
            let missing = shown.subtracting(printed.keys).sorted()
            if !missing.isEmpty {
                differences.append("\(path): documented but not printed: \(missing.joined(separator: ", "))")
            }
            let extra = Set(printed.keys).subtracting(shown).sorted()
            if documented["…"] == nil && !extra.isEmpty {
                differences.append("\(path): printed but not documented: \(extra.joined(separator: ", "))")
            }
            for key in shown.intersection(printed.keys).sorted() {
                differences += keyDifferences(
                    documented: documented[key]!, printed: printed[key]!, at: path + "." + key)
            }
            return differences
        }
        if let documented = documented as? [Any], let printed = printed as? [Any] {
            return documented.indices.flatMap { index in
                index < printed.count
                    ? keyDifferences(documented: documented[index], printed: printed[index], at: "\(path)[\(index)]")
                    : ["\(path)[\(index)]: documented but not printed"]
            }
        }
        return []
    }

    /// The built iapsim in `folder`'s state, with a home and config folder of its own there and
    /// the bundled catalog.
    static func run(_ words: [String], in folder: String) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: EndToEndTests.binary)
        process.arguments = words
        process.environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": folder + "/home",
            "XDG_CONFIG_HOME": folder + "/config", "IAPSIM_STATE_DIR": folder + "/state",
            "IAPSIM_CATALOG": Harness.repositoryRoot + "/catalog",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
