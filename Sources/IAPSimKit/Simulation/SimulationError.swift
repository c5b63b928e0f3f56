import Foundation

/// Why a simulation control could not act on the transaction or subscription named.
public enum SimulationError: Error, Equatable, Sendable {
    case unknownTransaction(id: UInt64)
    /// `approve`/`decline` of something that is not waiting for Ask to Buy, `resolve` of
    /// something that has no issue to resolve.
    case wrongState(id: UInt64, detail: String)
    case notUnfinished(id: UInt64)
    case alreadyRevoked(id: UInt64)
    /// `family revoke` of a transaction the account bought itself.
    case notFamilyShared(id: UInt64)
    case notSubscribed(productID: String)
    /// A pending purchase's product is no longer in the catalog.
    case productGone(productID: String)
    /// No notification has this UUID.
    case unknownNotification(uuid: String)
    /// `iapsim trigger` cannot make this notification happen on the current state.
    case cannotTrigger(name: String, reason: String)
    /// A simulated error set for an API other than purchase (load products, App Store sync).
    case simulated(api: String, error: SimulatedError)
    /// A price increase of a subscription that is not active and renewing to this product.
    case notRenewing(productID: String)
    /// Auto-renew turned back on for a subscription cancelling in its Billing Grace Period
    /// ended: it is bought again, not resumed.
    case cancelledInGracePeriod(productID: String)
    /// A new price that is not above the renewal price, or not a price in its currency.
    case notAPriceIncrease(productID: String, price: String, current: String)
    /// A price above `Currency.maximumPrice`: signed data could not carry it.
    case priceTooHigh(price: String, maximum: String)
    /// `price-increase consent`/`decline` with no increase waiting for consent.
    case noPriceIncrease(productID: String)
    /// A refund request for a transaction that has one waiting:
    /// `Transaction.RefundRequestError.duplicateRequest`.
    case duplicateRefundRequest(id: UInt64)
    /// A refund request the transaction cannot have: already refunded, or deleted.
    case refundNotRequestable(id: UInt64, detail: String)
    /// `refund --decline` of a transaction with no refund request waiting.
    case noRefundRequest(id: UInt64)
    /// `refund --reverse` of a transaction that was not refunded.
    case notRefunded(id: UInt64)
}

extension SimulationError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .unknownTransaction(let id):
            "no transaction or pending purchase \(id); see 'iapsim transactions'"
        case .wrongState(let id, let detail):
            "transaction \(id) \(detail)"
        case .notUnfinished(let id):
            "transaction \(id) is already finished; see 'iapsim transactions --unfinished'"
        case .alreadyRevoked(let id):
            "transaction \(id) is already refunded or revoked"
        case .notFamilyShared(let id):
            "transaction \(id) was bought by this account, not shared by the family; 'iapsim refund \(id)' refunds it"
        case .notSubscribed(let productID):
            "\(productID): no subscription to it on this account; buy it first"
        case .productGone(let productID):
            "\(productID): the catalog no longer has this product"
        case .unknownNotification(let uuid):
            "no notification \(uuid); see 'iapsim notifications'"
        case .cannotTrigger(let name, let reason):
            "cannot trigger \(name): \(reason)"
        case .notRenewing(let productID):
            "\(productID): no active subscription renews to it; a price increase reaches subscribers whose "
                + "subscription renews (see 'iapsim status')"
        case .cancelledInGracePeriod(let productID):
            "\(productID): the subscription ended when auto-renew was turned off in its grace period; "
                + "buy it again to subscribe ('iapsim buy \(productID)')"
        case .notAPriceIncrease(let productID, let price, let current):
            "\(productID): \(price) is not a price increase: it renews at \(current); "
                + "give a higher price in that currency"
        case .priceTooHigh(let price, let maximum):
            "\(price) is above \(maximum), the highest price iapsim takes (signed data carries prices as "
                + "64-bit milliunits)"
        case .noPriceIncrease(let productID):
            "\(productID): no price increase waits for the subscriber's consent; "
                + "'iapsim price-increase \(productID) PRICE' first"
        case .duplicateRefundRequest(let id):
            "transaction \(id) already has a refund request waiting for the App Store's decision "
                + "(Transaction.RefundRequestError.duplicateRequest); 'iapsim refund \(id)' or "
                + "'iapsim refund \(id) --decline' decides it"
        case .refundNotRequestable(let id, let detail):
            "transaction \(id) \(detail) (Transaction.RefundRequestError.failed)"
        case .noRefundRequest(let id):
            "transaction \(id) has no refund request to decline; 'iapsim request-refund \(id)' first"
        case .notRefunded(let id):
            "transaction \(id) was not refunded, so there is no refund to reverse"
        case .simulated(let api, let error):
            "\(api) failed with \(error.qualifiedName)\(error.code.map { " (\($0))" } ?? "") as the session settings ask; 'iapsim settings' shows them"
        }
    }
}
