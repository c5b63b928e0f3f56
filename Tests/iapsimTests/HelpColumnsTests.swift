import Testing

@testable import iapsim

/// Reference pages whose rows are a name and its description: every name in a column of its
/// own, with room after the longest.
@Suite struct HelpColumnsTests {
    @Test(arguments: [["help", "settings-keys"], ["help", "environment"]])
    func everyNameHasItsOwnColumn(words: [String]) {
        let result = Harness().run(words)
        #expect(result.status == 0)
        let rows = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
        #expect(rows.count > 10)
        let starts = Set(
            rows.map { row -> Int in
                let text = row.dropFirst(2)
                let name = text.prefix { $0 != " " }
                #expect(text.dropFirst(name.count).hasPrefix("  "), "'\(name)' runs into its description: \(row)")
                return 2 + name.count + text.dropFirst(name.count).prefix { $0 == " " }.count
            })
        #expect(starts.count == 1, "every description starts in the same column")
    }
}
