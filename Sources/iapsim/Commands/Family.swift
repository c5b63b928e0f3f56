import Foundation
import IAPSimKit

struct Family: CLICommand {
    static let spec = CommandSpec(
        name: "family", abstract: "Family Sharing: the organiser stops sharing a purchase.",
        synopsis: "revoke <transaction-id>",
        discussion: """
            A purchase shared with this account ('iapsim buy ID --as-family-member',
            ownershipType familyShared) stops being shared, as when the organiser turns sharing
            off or leaves the family: the transaction (for a subscription, its current period) is
            revoked, the entitlement goes, Transaction.updates delivers the revoked transaction,
            and the App Store sends a REVOKE notification. A transaction this account bought
            itself is refused (exit 64): refund it instead.
            """,
        arguments: [.init("action", kind: .word(["revoke"])), .init("transaction-id", kind: .transactionID)],
        options: [],
        examples: [
            "iapsim buy com.example.app.book --as-family-member", "iapsim family revoke 1",
        ])

    let id: UInt64

    init(_ words: ParsedWords) throws(UsageError) {
        guard words.arguments.first == "revoke" else {
            if let action = words.arguments.first { throw words.error("unknown family action '\(action)'; use revoke") }
            throw words.error("missing action: iapsim family revoke <transaction-id>")
        }
        guard words.arguments.count >= 2 else {
            throw words.error("missing transaction identifier: iapsim family revoke <transaction-id>")
        }
        try words.expect(count: 2)
        id = try words.transactionID(words.arguments[1])
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let revocation = try session.revokeFamilySharing(id)
        let transaction = revocation.transaction
        return try Report.revocation(
            revocation, result: "revoked",
            line: "Family Sharing of \(transaction.productID) stopped: transaction \(transaction.id) is revoked "
                + "and the entitlement is gone (REVOKE notification queued).",
            context: session.storeKitContext())
    }
}
