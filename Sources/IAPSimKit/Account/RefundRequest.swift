import Foundation

/// A refund the customer asked for (StoreKit's `Transaction.beginRefundRequest(in:)`) that
/// the App Store has not decided yet. A transaction has at most one: a second request while
/// this one waits fails with `Transaction.RefundRequestError.duplicateRequest`.
public struct RefundRequest: Sendable, Equatable {
    /// App Store Server Notifications' `consumptionRequestReason`: why the customer asked.
    public enum Reason: String, Sendable, CaseIterable {
        case unintendedPurchase = "UNINTENDED_PURCHASE"
        case fulfillmentIssue = "FULFILLMENT_ISSUE"
        case unsatisfiedWithPurchase = "UNSATISFIED_WITH_PURCHASE"
        case legal = "LEGAL"
        case other = "OTHER"

        /// The reason a request records when the customer gave none: `CONSUMPTION_REQUEST`
        /// always carries a `consumptionRequestReason`.
        public static let unstated = Reason.other
    }

    public var transactionID: UInt64
    public var productID: String
    public var requestDate: Date
    public var reason: Reason?

    public init(transactionID: UInt64, productID: String, requestDate: Date, reason: Reason?) {
        self.transactionID = transactionID
        self.productID = productID
        self.requestDate = requestDate
        self.reason = reason
    }
}
