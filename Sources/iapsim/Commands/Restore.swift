import Foundation
import IAPSimKit

struct Restore: CLICommand {
    static let spec = CommandSpec(
        name: "restore", abstract: "Re-deliver what the account owns (restoreCompletedTransactions).",
        synopsis: "",
        discussion: """
            Re-delivers the account's restorable purchases into the app's record, as
            restoreCompletedTransactions and AppStore.sync() do: non-consumables and active
            auto-renewable subscriptions. Consumables and non-renewing subscriptions are not
            restored (Apple leaves them to the app). Prints "Restored N purchases." or
            "No purchases to restore."; exits 0 either way, or 1 when error.app-store-sync is set.
            """,
        arguments: [],
        options: [],
        examples: ["iapsim reset --local && iapsim restore", "iapsim restore --json"])

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let restoration = try session.restore()
        let restored = restoration.productIDs
        return Report(
            json: .object([("restored", .array(restored.map(JSON.string))), ("count", .int(restored.count))]),
            lines: [
                restored.isEmpty
                    ? "No purchases to restore."
                    : "Restored \(restored.count) purchase\(restored.count == 1 ? "" : "s")."
            ],
            notes: CommandContext.unfinishedNote(restoration.unfinishedTransactionIDs))
    }
}
