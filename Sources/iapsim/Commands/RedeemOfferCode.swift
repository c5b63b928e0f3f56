import Foundation
import IAPSimKit

struct RedeemOfferCode: CLICommand {
    static let spec = CommandSpec(
        name: "redeem-offer-code",
        abstract: "Redeem an offer code for a subscription (the offer code redemption sheet).",
        synopsis: "<product-id> <offer-code> [--yes]",
        discussion: """
            AppStore.presentOfferCodeRedeemSheet: redeems one of the subscription's codeOffers,
            named by its offerID or, when the .storekit file gives it none, its reference name
            (what the transaction's offer id carries). Apple's eligibility applies as the file
            sets it: new (never subscribed in the group), existing (subscribed now: the offer
            starts at the next renewal) or expired (subscribed before). A stackable code follows
            an introductory offer the buyer still gets. Refused codes fail as StoreKit does
            (Product.PurchaseError invalidOfferIdentifier, ineligibleForOffer: exit 1);
            'settings set error.offer-code-redeem ERROR' makes the sheet fail.
            """,
        arguments: [.init("product-id", kind: .productID), .init("offer-code", kind: .text)],
        options: [
            .yes
        ],
        examples: [
            "iapsim redeem-offer-code com.example.app.pro.monthly pro.winter --yes",
            "iapsim redeem-offer-code com.example.app.pro.monthly pro.winter --yes --json",
        ])

    let productID: String
    let codeID: String
    let assumeYes: Bool

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 2)
        guard words.arguments.count == 2 else {
            throw words.error("usage: iapsim redeem-offer-code <product-id> <offer-code>")
        }
        productID = words.arguments[0]
        codeID = words.arguments[1]
        assumeYes = words.flag("yes")
    }

    func run(in context: CommandContext) throws -> Report {
        try Buy(request: PurchaseRequest(productID: productID, offer: .code(id: codeID)), assumeYes: assumeYes)
            .run(in: context)
    }
}
