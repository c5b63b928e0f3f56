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

    /// `transactions` shows what each was charged and under which offer, as the page's Price
    /// and Offer columns do.
    @Test func theTransactionsTableShowsPriceAndOffer() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        #expect(harness.run("buy", "com.example.app.coins100", "--quantity", "3", "--yes").status == 0)
        let lines = harness.run("transactions").stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasSuffix("EXPIRES               PRICE") == true, "\(lines)")
        #expect(lines.count == 3)
        #expect(lines.dropFirst().first?.hasSuffix("  0 USD (introductory offer, free trial)") == true, "\(lines)")
        #expect(lines.last?.hasSuffix("  2.97 USD") == true, "\(lines)")
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

/// Tables are laid out in terminal columns: wide characters take two, combining marks none.
@Suite struct DisplayWidthTests {
    @Test(arguments: [
        ("abc", 3), ("日本語", 6), ("ｺｲﾝ", 3), ("ＡＢ", 4), ("코인", 4), ("e\u{301}te\u{301}", 3), ("⛽️", 2), ("🚙", 2),
        ("👨‍👩‍👧", 2), ("🇯🇵", 2), ("❤️", 2), ("❤", 1), ("a\u{200B}b", 2), ("Ünïcödé", 7), ("", 0),
    ])
    func columns(_ text: String, _ expected: Int) {
        #expect(TerminalText.displayWidth(text) == expected, "\(text)")
    }

    @Test func wideTitlesLineUp() {
        let lines = TerminalText.table([
            ["ID", "TITLE", "PRICE"],
            ["fx.coins", "コイン 100 枚", "¥120"],
            ["fx.gold", "金币", "¥6"],
            ["fx.cafe", "Cafe\u{301} ☕", "$1.99"],
            ["fx.car", "🚙 Utility", "$4.99"],
        ])
        #expect(
            lines == [
                "ID        TITLE          PRICE",
                "fx.coins  コイン 100 枚  ¥120",
                "fx.gold   金币           ¥6",
                "fx.cafe   Café ☕        $1.99",
                "fx.car    🚙 Utility     $4.99",
            ])
    }

    @Test func wideCellsAreCutByColumns() {
        let lines = TerminalText.table(
            [["ID", "TITLE", "PRICE"], ["fx.a", "日本語のとても長い名前です", "¥120"], ["fx.b", "short", "¥1"]],
            width: 24, shrinking: [1])
        #expect(
            lines == [
                "ID    TITLE        PRICE",
                "fx.a  日本語のと…  ¥120",
                "fx.b  short        ¥1",
            ])
        #expect(lines.allSatisfy { TerminalText.displayWidth($0) <= 24 })
        // A wide character that would straddle the edge goes whole; the cell is padded.
        #expect(TerminalText.truncated("日本語です", to: 6) == "日本…")
        #expect(TerminalText.padded(TerminalText.truncated("日本語です", to: 6), to: 6) == "日本… ")
    }
}
