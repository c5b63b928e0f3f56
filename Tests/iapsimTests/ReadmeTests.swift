import Foundation
import Testing

@testable import iapsim

/// The README and the man page against the parser's own tables, so the command and option
/// lists a newcomer reads cannot drift from what `iapsim` accepts; and the README's
/// walk-through, run as written.
@Suite struct ReadmeTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: Harness.repositoryRoot + "/" + path, encoding: .utf8)
    }

    /// The cells of each body row of the first Markdown table in the section under `heading`
    /// (a `## ` line), header and separator rows left out. `\|` inside a cell is a `|`.
    static func tableRows(under heading: String, in text: String) -> [[String]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: heading) else { return [] }
        var rows: [[String]] = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("## ") { break }
            if line.hasPrefix("|") {
                rows.append(cells(of: line))
            } else if !rows.isEmpty {
                break
            }
        }
        return Array(rows.dropFirst(2))
    }

    static func cells(of row: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in row.dropFirst() {
            if escaped {
                if character != "|" { current.append("\\") }
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        return cells
    }

    /// The text of each `code span` in `cell`, in order.
    static func codeSpans(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// Whether `word` occurs in `roff` as a whole word: not followed by a letter, a digit or
    /// an escaped hyphen (so `\-\-state` is not found inside `\-\-state\-dir`).
    static func mentions(_ roff: String, _ word: String) -> Bool {
        var start = roff.startIndex
        while let range = roff.range(of: word, range: start..<roff.endIndex) {
            let rest = roff[range.upperBound...]
            let continues = rest.first.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false
            if !continues && !rest.hasPrefix("\\-") { return true }
            start = roff.index(after: range.lowerBound)
        }
        return false
    }

    static func roff(_ text: String) -> String { text.replacingOccurrences(of: "-", with: "\\-") }

    /// docs/REFERENCE.md is generated from the commands' specs; `make docs` regenerates it.
    @Test func theReferenceIsInSyncWithTheCommands() throws {
        #expect(
            try Self.read("docs/REFERENCE.md") == HelpText.page(for: .reference),
            "run 'make docs' and commit docs/REFERENCE.md")
    }

    /// docs/schemas/transaction.schema.json is generated from the members a transaction's
    /// public form writes (`Transaction.viewMembers`) and a listing's row adds.
    @Test func theTransactionSchemaIsInSyncWithTheWriter() throws {
        #expect(
            try Self.read("docs/schemas/transaction.schema.json") == HelpText.page(for: .transactionSchema),
            "run 'make docs' and commit docs/schemas/transaction.schema.json")
    }

    @Test func theManPageMentionsEveryCommandAndOption() throws {
        let page = try Self.read("docs/iapsim.1")
        for spec in Registry.visible {
            #expect(Self.mentions(page, "iapsim " + Self.roff(spec.name)), "command \(spec.name)")
            for alias in spec.aliases { #expect(Self.mentions(page, Self.roff(alias)), "alias \(alias)") }
        }
        for spec in Registry.allOptions {
            #expect(Self.mentions(page, Self.roff("--" + spec.name)), "option --\(spec.name)")
            if let short = spec.short { #expect(Self.mentions(page, Self.roff("-\(short)")), "option -\(short)") }
        }
    }

    /// The documentation speaks of this repository only.
    @Test func noDocumentCitesFilesOutsideTheRepository() throws {
        let root = Harness.repositoryRoot
        var paths = ["README.md"]
        let enumerator = FileManager().enumerator(atPath: root + "/docs")
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            // The screenshots of docs/ui are images, not text that could cite anything.
            if FileManager().fileExists(atPath: root + "/docs/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue, !path.hasSuffix(".png")
            {
                paths.append("docs/" + path)
            }
        }
        #expect(paths.count > 1)
        for path in paths {
            let text = try Self.read(path)
            for outside in ["../shared", "LINUX-NOTES", "APP-STORE-SERVER"] {
                #expect(!text.contains(outside), "\(path) mentions \(outside)")
            }
        }
    }

    /// A newcomer's first page: short, with the two set-up commands (its links are checked with
    /// every page's in `DocumentationTests`).
    @Test func theReadmeIsAShortFirstPage() throws {
        let readme = try Self.read("README.md")
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count < 200)
        #expect(readme.contains("swift run iapsim list"))
        #expect(readme.contains("make test"))
    }

    /// The README's walk-through, run in order on a fresh state with the bundled catalog: each
    /// command succeeds and prints the lines shown (`…` stands for text left out). A line
    /// ending in `[y/N] y` is the prompt, answered.
    @Test func theWalkThroughRunsAsWritten() throws {
        let readme = try Self.read("README.md")
        let section = try #require(readme.components(separatedBy: "## A walk-through").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```console\n").dropFirst().first)
            .components(separatedBy: "```")[0]
        var steps: [(command: String, expected: [String])] = []
        for line in block.split(separator: "\n").map(String.init) {
            if line.hasPrefix("$ ") {
                steps.append((String(line.dropFirst(2)), []))
            } else if !steps.isEmpty {
                steps[steps.count - 1].expected.append(line)
            }
        }
        #expect(steps.count >= 4)
        let harness = Harness()
        harness.terminal = true
        for step in steps {
            let words = step.command.components(separatedBy: " #")[0].split(separator: " ").map(String.init)
            #expect(words.first == "iapsim", "\(step.command)")
            var expected = step.expected
            if let index = expected.firstIndex(where: { $0.hasSuffix("[y/N] y") }) {
                expected[index].removeLast(2)
                harness.answers = ["y"]
            }
            let result = harness.run(Array(words.dropFirst()))
            #expect(result.status == 0, "\(step.command): \(result.stderr)")
            let output = result.stdout + result.stderr
            for line in expected {
                for fragment in line.components(separatedBy: "…")
                where !fragment.trimmingCharacters(in: .whitespaces).isEmpty {
                    #expect(output.contains(fragment), "\(step.command) did not print: \(fragment)\n\(output)")
                }
            }
            harness.answers = []
        }
    }
}
