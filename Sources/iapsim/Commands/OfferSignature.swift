import Foundation
import IAPSimKit

struct OfferSignature: CLICommand {
    static let spec = CommandSpec(
        name: "offer-signature", abstract: "Sign a promotional offer as a developer's server does.",
        synopsis: "<product-id> <offer-id> [--nonce UUID] [--timestamp MS] [--app-account-token UUID]",
        discussion: """
            Apple's "Generating a signature for promotional offers": ECDSA P-256 with SHA-256
            over the bundle identifier, key identifier, product, offer, app account token (empty
            without --app-account-token, which must then be the purchase's),
            nonce and timestamp joined by U+2063, with the .storekit file's
            subscriptionOffersKeyPair (the key Xcode checks promotional offers with locally).
            Prints KEY_ID:NONCE:TIMESTAMP:SIGNATURE for 'buy --offer ID --offer-signature',
            so a backend's own signer can be compared with it (same nonce and timestamp, same
            payload). A catalog without a key pair is a usage error (64). 'buy' redeems a
            signature once: give each purchase a new nonce (the default).
            """,
        arguments: [.init("product-id", kind: .productID), .init("offer-id", kind: .text)],
        options: [
            OptionSpec(name: "nonce", valueName: "UUID", help: "The signature's nonce (default: a new UUID)."),
            OptionSpec(
                name: "timestamp", valueName: "MS",
                help: "The signature's time in milliseconds since 1970 (default: now)."),
            .appAccountToken,
        ],
        examples: [])

    let productID: String
    let offerID: String
    let nonce: UUID?
    let timestamp: Int64?
    let appAccountToken: UUID?

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 2)
        guard words.arguments.count == 2 else {
            throw words.error("usage: iapsim offer-signature <product-id> <offer-id>")
        }
        productID = words.arguments[0]
        offerID = words.arguments[1]
        nonce = try words.value("nonce").map { text throws(UsageError) -> UUID in
            guard let uuid = UUID(uuidString: text) else { throw words.error("--nonce \(text): expected a UUID") }
            return uuid
        }
        timestamp = try words.value("timestamp").map { text throws(UsageError) -> Int64 in
            guard let value = Int64(text), value >= 0 else {
                throw words.error("--timestamp \(text): expected milliseconds since 1970")
            }
            return value
        }
        do throws(PurchaseRequestError) {
            appAccountToken = try words.value("app-account-token").map(UUID.init(appAccountToken:))
        } catch {
            throw words.error(error.errorDescription ?? "\(error)")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        let (catalog, session) = try context.catalogAndSession()
        let signature = try session.signPromotionalOffer(
            productID: productID, offerID: offerID, appAccountToken: appAccountToken, nonce: nonce ?? UUID(),
            timestamp: timestamp, in: catalog)
        return Report(
            json: .object([
                ("keyIdentifier", .string(signature.keyID)), ("nonce", .string(signature.nonce)),
                ("timestamp", .int(signature.timestamp)), ("signature", .string(signature.signature)),
                ("offerSignature", .string(signature.text)),
            ]),
            lines: [signature.text])
    }
}
