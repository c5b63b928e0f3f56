import Foundation
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

    @Test func everyDocumentedVariableIsOneIapsimReads() throws {
        let environment = HelpText.page(for: .environment)
        for variable in [
            "IAPSIM_CATALOG", "IAPSIM_STATE_DIR", "IAPSIM_LOCALE", "IAPSIM_LOCK_TIMEOUT", "XDG_CONFIG_HOME", "HOME",
            "NO_COLOR", "COLUMNS", "TERM",
        ] {
            #expect(environment.contains(variable), "\(variable)")
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
                "redeem-offer-code", "refund", "renew", "request-refund", "reset", "resolve", "restore",
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
