import Foundation
import IAPSimJSON
import IAPSimKit

struct CancelSubscription: CLICommand {
    static let spec = CommandSpec(
        name: "cancel-subscription", abstract: "Turn auto-renew off: the subscription expires at its period's end.",
        synopsis: "<product-id> [--undo]",
        discussion: """
            disableAutoRenewForTransaction(identifier:): DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED,
            and the subscription expires at its period's end (EXPIRED/VOLUNTARY). After a
            failed renewal, in the Billing Grace Period as in billing retry, it ends the
            subscription at once: EXPIRED/VOLUNTARY now, no longer entitled, and (cancelled in
            the grace period) gone from /verifyReceipt's pending_renewal_info. --undo turns it
            back on (enableAutoRenewForTransaction, AUTO_RENEW_ENABLED).
            """,
        arguments: [.init("product-id", kind: .productID)],
        options: [
            OptionSpec(name: "undo", help: "Turn auto-renew back on.")
        ],
        examples: [
            "iapsim buy com.example.app.pro.monthly", "iapsim cancel-subscription com.example.app.pro.monthly",
            "iapsim cancel-subscription com.example.app.pro.monthly --undo",
        ])

    let productID: String
    let undo: Bool

    init(_ words: ParsedWords) throws(UsageError) {
        productID = try words.only("product-id")
        undo = words.flag("undo")
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let change = undo ? try session.resumeSubscription(productID) : try session.cancelSubscription(productID)
        let expiry = change.expirationDate
        let until = expiry.map(ISO8601Date.string) ?? "its period ends"
        // After a failed renewal auto-renew off ends the subscription now: no date to wait for.
        let ended = !undo && change.info.phase == .expired
        return Report(
            json: .object([
                ("productID", .string(productID)), ("willAutoRenew", .bool(change.info.willAutoRenew)),
                ("expirationDate", .date(expiry)),
            ]),
            lines: [
                undo
                    ? "Auto-renew is on again for \(productID)."
                    : ended
                        ? "Auto-renew is off for \(productID): its renewal had failed, so the subscription expired now "
                            + "(EXPIRED/VOLUNTARY)."
                        : "Auto-renew is off for \(productID): it stays active until \(until), then expires."
            ])
    }
}
