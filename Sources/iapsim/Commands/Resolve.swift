import Foundation
import IAPSimJSON
import IAPSimKit

struct Resolve: CLICommand {
    static let spec = CommandSpec(
        name: "resolve", abstract: "Resolve an interrupted purchase or a billing issue.",
        synopsis: "<transaction-id>",
        discussion: """
            SKTestSession.resolveIssueForTransaction(identifier:): an interrupted purchase
            completes as a new transaction, which the app's next launch (list, buy, restore,
            status) receives through Transaction.updates; a subscription in billing retry
            renews (within its grace period it keeps its billing date, after it a new period
            starts now).
            """,
        arguments: [.init("transaction-id", kind: .transactionID)],
        options: [],
        examples: ["iapsim buy com.example.app.book --outcome interrupted; iapsim resolve 1"])

    let id: UInt64

    init(_ words: ParsedWords) throws(UsageError) {
        id = try words.onlyTransactionID()
    }

    func run(in context: CommandContext) throws -> Report {
        let (catalog, session) = try context.catalogAndSession()
        switch try session.resolve(id, in: catalog) {
        case .interruptedPurchase(let interruptedID, let result):
            return try Report.completion(of: interruptedID, result, session.storeKitContext()) { transaction in
                "Resolved: the interrupted purchase \(interruptedID) completed as transaction \(transaction.id) for "
                    + "\(transaction.productID); the app receives it through Transaction.updates at its next launch."
            }
        case .recovered(let renewal):
            let until = renewal.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
            let storeKit = try session.storeKitContext()
            return Report(
                json: .object([
                    ("id", .int(id)), ("result", .string("renewed")), ("transaction", .transaction(renewal, storeKit)),
                ]),
                lines: [
                    "Resolved the billing issue: \(renewal.productID) renewed as transaction \(renewal.id)\(until)."
                ])
        }
    }
}
