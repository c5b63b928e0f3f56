import Foundation
import IAPSimKit

struct Approve: CLICommand {
    static let spec = CommandSpec(
        name: "approve", abstract: "Approve an Ask to Buy purchase: it completes.",
        synopsis: "<transaction-id>",
        discussion: """
            SKTestSession.approveAskToBuyTransaction(identifier:): the pending purchase completes
            with that identifier and is delivered. What it buys is decided now: a non-consumable
            or subscription the account has by then is not charged again. A request expires
            unanswered after 24 hours of simulated time and can no longer be approved.
            """,
        arguments: [.init("transaction-id", kind: .transactionID)],
        options: [],
        examples: ["iapsim buy com.example.app.book --outcome ask-to-buy; iapsim approve 1"])

    let id: UInt64

    init(_ words: ParsedWords) throws(UsageError) {
        id = try words.onlyTransactionID()
    }

    func run(in context: CommandContext) throws -> Report {
        let (catalog, session) = try context.catalogAndSession()
        let result = try session.approve(id, in: catalog)
        return try Report.completion(of: id, result, session.storeKitContext()) { transaction in
            "Approved: transaction \(transaction.id) for \(transaction.productID) is purchased and delivered through "
                + "Transaction.updates."
        }
    }
}
