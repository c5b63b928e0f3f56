import Foundation
import IAPSimKit
import Testing

@testable import iapsim

@Suite struct DocumentationTests {
    /// `docs/iapsim.1` is generated from the help text; `make man` regenerates it.
    @Test func theManPageIsInSyncWithTheHelp() throws {
        let committed = try String(contentsOfFile: Harness.repositoryRoot + "/docs/iapsim.1", encoding: .utf8)
        #expect(committed == HelpText.page(for: .manpage) + "\n", "run 'make man' and commit docs/iapsim.1")
        for spec in Registry.visible {
            #expect(committed.contains(spec.name.replacingOccurrences(of: "-", with: "\\-")))
        }
        for code in ExitCode.allCases { #expect(committed.contains("\\fB\(code.rawValue)\\fR")) }
    }

    /// README.md and every page in docs/, by their paths from the repository's root.
    static func markdownPages() throws -> [String] {
        let pages = try FileManager().contentsOfDirectory(atPath: Harness.repositoryRoot + "/docs")
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + pages
    }

    /// The target of each inline link `[text](target)` of a Markdown page, outside code blocks
    /// and code spans, without its `#anchor` or title.
    static func linkTargets(in text: String) -> [String] {
        var targets: [String] = []
        var inCodeBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCodeBlock.toggle() }
            if inCodeBlock { continue }
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            for piece in prose.components(separatedBy: "](").dropFirst() {
                guard let end = piece.firstIndex(of: ")") else { continue }
                let link = piece[..<end].split(separator: " ").first.map(String.init) ?? ""
                targets.append(String(link.split(separator: "#", omittingEmptySubsequences: false)[0]))
            }
        }
        return targets
    }

    /// Every relative link of README.md and docs/*.md leads to a file in the repository.
    @Test func everyRelativeLinkResolves() throws {
        let root = Harness.repositoryRoot
        var linked = 0
        for page in try Self.markdownPages() {
            let folder = (root + "/" + page as NSString).deletingLastPathComponent
            for target in Self.linkTargets(in: try ReadmeTests.read(page))
            where !target.isEmpty && !target.contains(":") {
                linked += 1
                if !FileManager().fileExists(atPath: folder + "/" + target) {
                    Issue.record("\(page) links to \(target), which does not exist")
                }
            }
        }
        #expect(linked > 50)
    }

    @Test func linkTargetsAreReadOutsideCodeOnly() {
        let page = "[a](A.md) and [b](../B.md#part \"title\"), `[c](C.md)`\n```\n[d](D.md)\n```\n[e](https://e.org)"
        #expect(Self.linkTargets(in: page) == ["A.md", "../B.md", "https://e.org"])
    }

    /// No page shows a path of the machine it was written on: a home, a checkout, a temporary
    /// folder mktemp made. (A path a reader can use, such as "${TMPDIR:-/tmp}/iapsim.port", is fine.)
    @Test func noPageShowsAMachinesPaths() throws {
        for page in try Self.markdownPages() {
            let text = try ReadmeTests.read(page)
            for prefix in ["/work/", "/root/", "/home/", "/Users/", "/tmp/tmp", "/var/folders/"] {
                #expect(!text.contains(prefix), "\(page) shows a path under \(prefix)")
            }
        }
    }

    /// `help environment` and SCRIPTING.md list every variable the code reads: each name in an
    /// environment look-up anywhere in Sources is `EnvironmentVariable`'s (or one of
    /// libfaketime's that `clock exec` leaves), and each of those is on the page and in the doc.
    @Test func everyVariableTheCodeReadsIsDocumented() throws {
        let known = Set(EnvironmentVariable.allCases.map(\.name) + EnvironmentVariable.libfaketimeMarkers)
        let lookUp = try Regex(#"(?:environment\[|variable\(|getenv\()\s*"([A-Za-z_][A-Za-z0-9_]*)""#)
        var found: Set<String> = []
        let sources = Harness.repositoryRoot + "/Sources"
        let files = try #require(FileManager().enumerator(atPath: sources)).compactMap { $0 as? String }
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in text.matches(of: lookUp) {
                let name = String(try #require(match.output[1].substring))
                found.insert(name)
                #expect(known.contains(name), "\(file) reads \(name), which help environment does not list")
            }
        }
        #expect(found.contains("FAKETIME_TIMESTAMP_FILE"), "the scan finds the look-ups")
        let page = HelpText.page(for: .environment)
        let scripting = try ReadmeTests.read("docs/SCRIPTING.md")
        for name in known {
            #expect(page.contains(name), "help environment lacks \(name)")
            #expect(scripting.contains("`\(name)`") || scripting.contains(name), "SCRIPTING.md lacks \(name)")
        }
    }
}

/// The bash completion, sourced in a real bash and asked for completions.
@Suite struct CompletionTests {
    private func complete(_ words: [String]) throws -> [String] {
        let binary = EndToEndTests.binary
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            source <("\(binary)" completion bash)
            iapsim() { "\(binary)" "$@"; }
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _iapsim
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        var environment = ProcessInfo.processInfo.environment
        environment["IAPSIM_CATALOG"] = Harness.repositoryRoot + "/catalog"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func completesCommandsOptionsAndProducts() throws {
        #expect(
            try complete(["iapsim", "re"]).sorted() == [
                "receipt", "redeem-offer-code", "refund", "renew", "request-refund", "reset", "resolve", "restore",
            ])
        #expect(try complete(["iapsim", "buy", "Demo."]) == ["Demo.TechoverInAppPurchase.co.Apple.Book"])
        #expect(
            try complete(["iapsim", "buy", "com.example.app.pro."]).sorted() == [
                "com.example.app.pro.monthly", "com.example.app.pro.yearly",
            ])
        #expect(try complete(["iapsim", "list", "--js"]) == ["--json"])
        #expect(try complete(["iapsim", "buy", "x", "--outcome", "ask"]) == ["ask-to-buy"])
        #expect(try complete(["iapsim", "settings", "set", "grace"]) == ["grace-period"])
    }

    @Test func zshAndFishScriptsAreOffered() {
        let harness = Harness()
        #expect(harness.run("completion", "zsh").stdout.hasPrefix("#compdef iapsim"))
        #expect(harness.run("completion", "fish").stdout.contains("complete -c iapsim"))
        #expect(harness.run("completion", "tcsh").status == 64)
    }
}
