/// The subcommands, with their aliases. One table drives parsing, help and suggestions.
enum CommandName: String, CaseIterable, Sendable {
    case listProducts = "list-products"
    case check
    case buy
    case redeemOfferCode = "redeem-offer-code"
    case offerSignature = "offer-signature"
    case restore
    case status
    case transactions
    case approve
    case decline
    case resolve
    case finish
    case refund
    case requestRefund = "request-refund"
    case family
    case cancelSubscription = "cancel-subscription"
    case expire
    case renew
    case priceIncrease = "price-increase"
    case clock
    case settings
    case reset
    case jws
    case certs
    case notifications
    case listen
    case trigger
    case notifyTest = "notify-test"
    case serve
    case completion
    case help

    var aliases: [String] {
        switch self {
        case .listProducts: ["list"]
        default: []
        }
    }

    init?(word: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue == word || $0.aliases.contains(word) }) else {
            return nil
        }
        self = match
    }
}
