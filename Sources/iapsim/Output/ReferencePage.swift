import Foundation
import IAPSimKit

/// docs/REFERENCE.md, generated from the commands' specs (`iapsim help reference`, which
/// `make docs` writes); a test fails when the committed file is stale.
enum ReferencePage {
    static var markdown: String {
        var lines = [
            "# Reference: every command and option",
            "",
            "Generated from the code by `iapsim help reference` (`make docs`); a test fails when it is stale.",
            "`iapsim help <command>` (or `iapsim <command> --help`) prints the same text for one command;",
            "`man iapsim` has them all. Options go before or after the command, as `--opt value` or",
            "`--opt=value`; `--` ends them.",
            "",
            "## Commands",
            "",
            "| command | what it does |",
            "|---|---|",
        ]
        for spec in Registry.visible {
            let alias =
                spec.aliases.isEmpty ? "" : " (alias " + spec.aliases.map { "`\($0)`" }.joined(separator: ", ") + ")"
            lines.append("| [`\(spec.name)`](#\(spec.name))\(alias) | \(cell(spec.abstract)) |")
        }
        lines += ["", "## Options every command takes", ""] + optionTable(GlobalOptions.specs)
        for spec in Registry.visible {
            lines += ["", "## \(spec.name)", "", spec.abstract, "", "```", spec.usage, "```", ""]
            lines += paragraphs(spec.discussion)
            if !spec.options.isEmpty { lines += [""] + optionTable(spec.options) }
            if !spec.examples.isEmpty { lines += ["", "```sh"] + spec.examples + ["```"] }
        }
        lines += ["", "## Exit codes", "", "| code | meaning |", "|---|---|"]
        lines += ExitCode.allCases.map { "| \($0.rawValue) | \(cell($0.meaning)) |" }
        lines += ["", "## Environment", "", "| variable | meaning |", "|---|---|"]
        lines += EnvironmentVariable.allCases.map { "| `\($0.name)` | \(cell($0.summary)) |" }
        lines += [
            "", "## See also", "",
            "[JSON.md](JSON.md) (the `--json` forms), [SCRIPTING.md](SCRIPTING.md), [SIMULATION.md](SIMULATION.md),",
            "[BACKEND.md](BACKEND.md), [NOTIFICATIONS.md](NOTIFICATIONS.md), [SERVER.md](SERVER.md),",
            "[CATALOG.md](CATALOG.md), [STORAGE.md](STORAGE.md).",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func optionTable(_ options: [OptionSpec]) -> [String] {
        ["| option | meaning |", "|---|---|"] + options.map { "| `\($0.synopsis)` | \(cell($0.help)) |" }
    }

    /// The discussion's lines joined into paragraphs (a blank line parts them).
    private static func paragraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n").map { paragraph in
            paragraph.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }.flatMap { [$0, ""] }.dropLast()
    }

    /// Text safe in a table cell.
    private static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
}
