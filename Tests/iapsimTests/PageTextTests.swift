import Foundation
import IAPSimTestSupport
import Testing

@testable import iapsim

/// The page shows text from the state (product names, notification bodies) as the terminal
/// does: control and bidirectional characters escaped, so a name cannot reorder what follows
/// it or hide characters. The page's own function is run (node) and compared with the
/// terminal's.
@Suite struct PageTextTests {
    /// `safe` as the page defines it, run by node on `inputs`; its outputs, one per input.
    private func pageSafe(_ inputs: [String], keepNewlines: Bool) throws -> [String] {
        let node = try External.file("/usr/bin/node")
        let script = PageSource.script
        let start = try #require(script.range(of: "const unsafeCharacters"))
        let end = try #require(script.range(of: "function el(", range: start.upperBound..<script.endIndex))
        let definition = String(script[start.lowerBound..<end.lowerBound])
        let data = try JSONSerialization.data(withJSONObject: inputs)
        let program =
            definition + "\nconst inputs = " + String(decoding: data, as: UTF8.self)
            + ";\nprocess.stdout.write(JSON.stringify(inputs.map((t) => safe(t, \(keepNewlines)))));\n"
        let output = try Self.node(node, ["-e", program]).output
        return try #require(try JSONSerialization.jsonObject(with: output) as? [String])
    }

    /// Runs node with `arguments`: its exit status, standard output and standard error.
    private static func node(_ node: String, _ arguments: [String]) throws -> (
        status: Int32, output: Data, errors: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: node)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is small (a parse error's lines); standard output is read first, whole.
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, out, String(decoding: err, as: UTF8.self))
    }

    static let samples = [
        "Plain name", "Gold \u{202E}gnp.exe", "a\u{2066}b\u{2069}c", "tab\there", "bell\u{7}", "C1 \u{85}\u{9B}",
        "lrm\u{200E}rlm\u{200F}", "line\nbreak", "日本語 ✓ 🎉", "del\u{7F}",
    ]

    @Test func thePageEscapesWhatTheTerminalEscapes() throws {
        #expect(try pageSafe(Self.samples, keepNewlines: false) == Self.samples.map { TerminalText.escaped($0) })
        #expect(
            try pageSafe(Self.samples, keepNewlines: true)
                == Self.samples.map { TerminalText.escaped($0, keepingNewlines: true) })
    }

    /// The page is real files, linted as what they are: the script parses (`node --check`),
    /// and the binary serves exactly the files in `Sources/iapsim/UI/Page`.
    @Test func thePageIsItsFilesAndTheScriptParses() throws {
        let folder = Harness.repositoryRoot + "/Sources/iapsim/UI/Page/"
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(onDisk == PageSource.files.map(\.name).sorted(), "a file in Page/ the binary does not serve")
        for file in PageSource.files {
            #expect(try String(contentsOfFile: folder + file.name, encoding: .utf8) == file.text, "\(file.name)")
        }
        let node = try External.file("/usr/bin/node")
        for file in PageSource.files where file.name.hasSuffix(".js") {
            let checked = try Self.node(node, ["--check", folder + file.name])
            #expect(checked.status == 0, "\(file.name): \(checked.errors)")
        }
    }

    /// The commands the page's buttons run are typed against the registry: each is a command
    /// `iapsim` has and one the page's server lets a button run (`PageCommands.actions`), and
    /// every one of those has a button.
    @Test func thePagesButtonsNameCommandsTheServerRuns() throws {
        let call = try Regex(#"(?:act|button)\([^;]*?\['([a-z-]+)'"#)
        let named = Set(
            (PageSource.script + PageSource.views + PageSource.buyForm).matches(of: call).compactMap {
                $0.output[1].substring.map(String.init)
            })
        let commands = Set(Registry.commands.map { $0.spec.name })
        for name in named {
            #expect(commands.contains(name), "the page runs '\(name)', which is no command")
            #expect(PageCommands.actions.contains(name), "the page's server refuses '\(name)'")
        }
        #expect(named == PageCommands.actions, "a command the server allows has no button, or the other way")
    }

    @Test func everyTextTheStateGivesGoesThroughIt() {
        let script = PageSource.script + PageSource.views + PageSource.buyForm
        #expect(script.contains("node.textContent = safe(value)"))
        #expect(script.contains("document.createTextNode(safe(child))"))
        #expect(script.contains("box.textContent = safe(text, true)"))
    }
}
