import Foundation
import Testing

@testable import iapsim

@Suite struct TerminalOutputTests {
    @Test func colourOnlyOnATerminalAndNeverWithNoColor() {
        let terminal = Harness()
        terminal.outputTerminal = true
        #expect(terminal.run("list").stdout.contains("\u{1B}["))
        #expect(!terminal.run("list", "--no-color").stdout.contains("\u{1B}["))
        let noColor = Harness(environment: ["NO_COLOR": "1"])
        noColor.outputTerminal = true
        #expect(!noColor.run("list").stdout.contains("\u{1B}["))
        #expect(!noColor.run("buy", "com.example.app.book").stdout.contains("\u{1B}["))
        #expect(!Harness().run("list").stdout.contains("\u{1B}["))  // a pipe
    }

    @Test func quietPrintsNothingButErrors() {
        let harness = Harness()
        let buy = harness.run("buy", "com.example.app.book", "--quiet")
        #expect(buy.status == 0)
        #expect(buy.stdout.isEmpty && buy.stderr.isEmpty)
        let list = harness.run("-q", "list")
        #expect(list.stdout.isEmpty && list.stderr.isEmpty)  // not even the invalid-identifier warning
        let failed = harness.run("buy", "nope", "--quiet")
        #expect(failed.status == 5)
        #expect(failed.stderr.hasPrefix("Error: "))
    }

    @Test func tablesFitTheWidthInColumns() {
        let narrow = Harness(environment: ["COLUMNS": "80"]).run("list").stdout.split(separator: "\n")
        #expect(narrow.filter { !$0.hasPrefix("    ") }.allSatisfy { $0.count <= 80 })
        #expect(narrow.contains { $0.contains("…") })
        let wide = Harness(environment: ["COLUMNS": "200"]).run("list").stdout
        #expect(!wide.contains("…"))
    }
}
