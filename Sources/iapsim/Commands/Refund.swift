import Foundation
import IAPSimKit

struct Refund: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "refund", abstract: "Refund a transaction, decline a refund request, or reverse a refund.",
        synopsis: "<transaction-id> [--reason developerIssue|other] [--prorated PERCENT] | --decline | --reverse",
        discussion: """
            SKTestSession.refundTransaction(identifier:): sets revocationDate and
            revocationReason on that transaction only, and the App Store sends REFUND. StoreKit
            delivers the revoked transaction through Transaction.updates (a note says so) and the
            app reacts; iapsim's app record does what an app should: a non-consumable leaves it; a
            subscription's current period refunded revokes the subscription, which stops renewing,
            while an earlier period refunded leaves the subscription as it is; a consumable's
            quantity comes off its balance (not below zero). The refund is of the whole
            transaction (revocationType REFUND_FULL, revocationPercentage 100000); --prorated
            PERCENT gives back part of it (REFUND_PRORATED, revocationPercentage PERCENT in
            milliunits, more than 0 and less than 100, up to three decimals), the transaction
            revoked all the same. When the customer asked for the refund ('iapsim
            request-refund'), this grants the request. --decline declines the request instead
            (REFUND_DECLINED); --reverse reverses a refund granted before, after a customer's
            dispute (REFUND_REVERSED): the revocation is undone and the app's record gets the
            purchase back.
            """,
        arguments: [.init("transaction-id", kind: .transactionID)],
        options: [
            .value(
                "reason", "REASON",
                help: "The transaction's revocationReason: developerIssue or other (default other).",
                values: Transaction.RevocationReason.allCases.map(\.rawValue)),
            .value(
                "prorated", "PERCENT",
                help: "Refund part of the transaction (REFUND_PRORATED): more than 0 and less than 100."),
            OptionSpec(name: "decline", help: "Decline the customer's refund request (REFUND_DECLINED)."),
            OptionSpec(
                name: "reverse", help: "Reverse a refund granted before (REFUND_REVERSED): the revocation is undone."),
        ],
        examples: [
            "iapsim buy com.example.app.coins100", "iapsim refund 1",
            "iapsim buy com.example.app.book && iapsim refund 2 --reason developerIssue --json",
            "iapsim refund 2 --reverse",
            "iapsim buy com.example.app.coins100 && iapsim request-refund 3 && iapsim refund 3 --decline",
            "iapsim buy com.example.app.pro.monthly && iapsim refund 4 --prorated 40",
        ])

    let id: UInt64
    let action: Action

    enum Action: Equatable {
        /// `SKTestSession.refundTransaction(identifier:)`, granting a pending request; with a
        /// percentage, a prorated refund.
        case grant(IAPSimKit.Transaction.RevocationReason, RevocationPercentage?)
        /// `--decline`: the App Store declines the customer's refund request.
        case decline
        /// `--reverse`: the App Store reverses a refund it granted.
        case reverse
    }

    init(_ words: ParsedWords) throws(UsageError) {
        id = try words.onlyTransactionID()
        if words.flag("decline"), words.flag("reverse") {
            throw words.error("--decline and --reverse go separately: give one")
        }
        for flag in ["decline", "reverse"] where words.flag(flag) {
            if words.value("reason") != nil {
                throw words.error("--reason does not go with --\(flag): only a refund granted has a reason")
            }
            if words.value("prorated") != nil {
                throw words.error("--prorated does not go with --\(flag): only a refund granted has a percentage")
            }
        }
        if words.flag("decline") {
            action = .decline
        } else if words.flag("reverse") {
            action = .reverse
        } else {
            let text = words.value("reason") ?? "other"
            guard let reason = IAPSimKit.Transaction.RevocationReason(rawValue: text) else {
                throw words.error("--reason \(text): expected developerIssue or other")
            }
            do throws(InvalidRevocationPercentage) {
                action = .grant(reason, try words.value("prorated").map(RevocationPercentage.init(text:)))
            } catch {
                throw words.error(error.errorDescription ?? "\(error)")
            }
        }
    }

    func run(in context: CommandContext) throws -> Report {
        switch action {
        case .grant(let reason, let percentage): return try grant(reason, percentage, in: context)
        case .decline: return try decline(in: context)
        case .reverse: return try reverse(in: context)
        }
    }
}

extension Refund {
    /// StoreKit delivers the revoked transaction through `Transaction.updates`; the note says
    /// so, and what the app's record did with it.
    private func grant(
        _ reason: IAPSimKit.Transaction.RevocationReason, _ percentage: RevocationPercentage?,
        in context: CommandContext
    ) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let revocation = try session.refundTransaction(id, reason: reason, percentage: percentage)
        let transaction = revocation.transaction
        let what: String
        switch (transaction.productType, revocation.appRecord) {
        case (.consumable, _):
            what = "\(transaction.purchasedQuantity) taken off the balance of \(transaction.productID)"
        case (.autoRenewable, .kept):
            what = "this period of \(transaction.productID) is revoked; the subscription's current period is not"
        case (.autoRenewable, _): what = "\(transaction.productID) is revoked and will not renew"
        default: what = "\(transaction.productID) is revoked"
        }
        let answered = revocation.request == nil ? "" : ", granting the customer's refund request"
        var report = try Report.revocation(
            revocation, result: "refunded",
            line: "Refunded \(percentage.map { "\($0.value)% of " } ?? "")transaction \(id) (\(reason.rawValue))"
                + "\(answered): \(what).",
            context: session.storeKitContext())
        if let request = revocation.request { report.addJSON("refundRequest", .refundRequest(request)) }
        return report
    }

    private func decline(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let storeKit = try session.storeKitContext()
        let (request, transaction) = try session.declineRefund(id)
        return Report(
            json: .object([
                ("result", .string("declined")), ("refundRequest", .refundRequest(request)),
                ("transaction", .transaction(transaction, storeKit)),
            ]),
            lines: ["Declined the refund request for transaction \(id): \(request.productID) stays purchased."])
    }

    private func reverse(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let storeKit = try session.storeKitContext()
        let transaction = try session.reverseRefund(id)
        return Report(
            json: .object([("result", .string("reversed")), ("transaction", .transaction(transaction, storeKit))]),
            lines: [
                "Reversed the refund of transaction \(id): its revocation is undone and \(transaction.productID) "
                    + "is reinstated."
            ])
    }
}
