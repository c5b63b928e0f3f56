import Foundation
import IAPSimKit

struct Expire: CLICommand {
    static let spec = CommandSpec(
        name: "expire", abstract: "Expire a subscription now.",
        synopsis: "<product-id>",
        discussion: "SKTestSession.expireSubscription(productIdentifier:): it ends now and does not renew.",
        arguments: [.init("product-id", kind: .productID)],
        options: [],
        examples: ["iapsim buy com.example.app.pro.monthly && iapsim expire com.example.app.pro.monthly"])

    let productID: String

    init(_ words: ParsedWords) throws(UsageError) {
        productID = try words.only("product-id")
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let change = try session.expireSubscription(productID)
        return Report(
            json: .object([
                ("productID", .string(productID)), ("state", .string("expired")),
                ("originalID", .int(change.info.originalID)),
            ]),
            lines: ["\(productID) expired now and will not renew."])
    }
}
