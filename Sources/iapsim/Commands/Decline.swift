import Foundation
import IAPSimKit

struct Decline: CLICommand {
    static let spec = CommandSpec(
        name: "decline", abstract: "Decline an Ask to Buy purchase: nothing is bought.",
        synopsis: "<transaction-id>",
        discussion:
            "SKTestSession.declineAskToBuyTransaction(identifier:): the pending purchase ends without a transaction.",
        arguments: [.init("transaction-id", kind: .transactionID)],
        options: [],
        examples: ["iapsim buy com.example.app.book --outcome ask-to-buy; iapsim decline 1"])

    let id: UInt64

    init(_ words: ParsedWords) throws(UsageError) {
        id = try words.onlyTransactionID()
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let pending = try session.decline(id)
        return Report(
            json: .object([
                ("id", .int(id)), ("result", .string("declined")), ("productID", .string(pending.productID)),
            ]),
            lines: ["Declined: \(pending.productID) was not bought; nothing was charged."])
    }
}
