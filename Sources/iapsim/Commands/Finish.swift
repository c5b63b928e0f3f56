import Foundation
import IAPSimKit

struct Finish: CLICommand {
    static let spec = CommandSpec(
        name: "finish", abstract: "Finish a transaction the app left unfinished.",
        synopsis: "<transaction-id>",
        discussion: """
            Transaction.finish(). What happens outside the app (an approval, a resolved
            interruption, a purchase elsewhere or by the family, a renewal) stays unfinished
            until the app finishes it, whichever front end made it; the app's own 'buy' is
            finished at once unless 'settings set finish-transactions manual'. Every launch
            (list, buy, restore, status) notes on stderr that Transaction.updates re-delivered
            what is unfinished, until it is finished. A consumable that arrived unverified
            (settings set error.verification) was granted nothing: once verification passes,
            finishing it grants it, as the app does when Transaction.updates re-delivers it
            verified; while verification still fails, finishing it is refused.
            A backend finishes one the same way through the App Store Server API's Finish
            Transaction ('iapsim serve').
            """,
        arguments: [.init("transaction-id", kind: .transactionID)],
        options: [],
        examples: [
            "iapsim settings set finish-transactions manual", "iapsim buy com.example.app.book",
            "iapsim transactions --unfinished", "iapsim finish 1",
        ])

    let id: UInt64

    init(_ words: ParsedWords) throws(UsageError) {
        id = try words.onlyTransactionID()
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let granted = try session.finish(id)
        let grant = granted > 0 ? " The app granted its \(granted), verified now." : ""
        return Report(
            json: .object([("id", .int(id)), ("result", .string("finished")), ("granted", .int(granted))]),
            lines: ["Finished transaction \(id); StoreKit stops re-delivering it.\(grant)"])
    }
}
