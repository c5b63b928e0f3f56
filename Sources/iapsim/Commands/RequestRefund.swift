import Foundation
import IAPSimKit

struct RequestRefund: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "request-refund",
        abstract: "Ask for a refund as the customer: pending until refund grants or declines it.",
        synopsis: "<transaction-id> [--reason REASON]",
        discussion: """
            Transaction.beginRefundRequest(in:): the customer asks the App Store for a refund,
            which stays pending ('status' lists it). For every product type the App Store
            asks the developer for consumption information first: a CONSUMPTION_REQUEST
            notification, with --reason as its consumptionRequestReason (UNINTENDED_PURCHASE,
            FULFILLMENT_ISSUE, UNSATISFIED_WITH_PURCHASE, LEGAL, OTHER; OTHER when not given).
            For a subscription the App Store also turns auto-renew off
            (DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED), which in the Billing Grace Period
            ends it at once (EXPIRED/VOLUNTARY); a declined request leaves it off.
            'iapsim refund ID' grants it (REFUND), 'iapsim refund ID --decline' declines it
            (REFUND_DECLINED). A second request while one is pending fails as
            Transaction.RefundRequestError.duplicateRequest does (exit 64).
            """,
        arguments: [.init("transaction-id", kind: .transactionID)],
        options: [
            .value(
                "reason", "REASON",
                help: "The request's consumptionRequestReason, e.g. UNINTENDED_PURCHASE (default: OTHER).",
                values: RefundRequest.Reason.allCases.map(\.rawValue))
        ],
        examples: [
            "iapsim buy com.example.app.coins100 --yes",
            "iapsim request-refund 1 --reason UNINTENDED_PURCHASE",
            "iapsim notifications --type CONSUMPTION_REQUEST", "iapsim refund 1",
        ])

    let id: UInt64
    let reason: RefundRequest.Reason?

    init(_ words: ParsedWords) throws(UsageError) {
        id = try words.onlyTransactionID()
        reason = try words.value("reason").map { text throws(UsageError) -> RefundRequest.Reason in
            guard let reason = RefundRequest.Reason(rawValue: text) else {
                let known = RefundRequest.Reason.allCases.map(\.rawValue).joined(separator: ", ")
                throw words.error("--reason \(text): expected one of \(known)")
            }
            return reason
        }
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let request = try session.requestRefund(id, reason: reason)
        return Report(
            json: .object([
                ("id", .int(id)), ("result", .string("pending")), ("refundRequest", .refundRequest(request)),
            ]),
            lines: [
                "Refund requested for transaction \(id) (\(request.productID)); it is pending the App Store's decision: "
                    + "'iapsim refund \(id)' grants it, 'iapsim refund \(id) --decline' declines it."
            ])
    }
}
