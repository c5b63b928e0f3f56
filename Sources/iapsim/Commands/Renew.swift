import Foundation
import IAPSimJSON
import IAPSimKit

struct Renew: CLICommand {
    static let spec = CommandSpec(
        name: "renew", abstract: "Renew a subscription now.",
        synopsis: "<product-id>",
        discussion:
            "SKTestSession.forceRenewalOfSubscription(productIdentifier:): a renewal transaction now, one period long.",
        arguments: [.init("product-id", kind: .productID)],
        options: [],
        examples: ["iapsim buy com.example.app.pro.monthly && iapsim renew com.example.app.pro.monthly"])

    let productID: String

    init(_ words: ParsedWords) throws(UsageError) {
        productID = try words.only("product-id")
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let transaction = try session.renewSubscription(productID)
        let until = transaction.expirationDate.map { " until \(ISO8601Date.string($0))" } ?? ""
        let storeKit = try session.storeKitContext()
        return Report(
            json: .object([("result", .string("renewed")), ("transaction", .transaction(transaction, storeKit))]),
            lines: ["Renewed \(transaction.productID) as transaction \(transaction.id)\(until)."])
    }
}
