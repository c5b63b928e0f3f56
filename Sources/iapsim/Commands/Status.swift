import Foundation
import IAPSimJSON
import IAPSimKit

struct Status: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "status", abstract: "Show what is owned: products, consumables, subscriptions, pending.",
        synopsis: "",
        discussion: """
            Shows the app's purchased product identifiers and consumable balances, each
            auto-renewable subscription's state (subscribed, expired, inBillingRetryPeriod,
            inGracePeriod, revoked) with its expiry and whether it will renew, the purchases
            still pending, and the transactions the app has not finished.
            """,
        arguments: [],
        options: [
            .certs,
            .environment,
            .jws,
        ],
        examples: ["iapsim status", "iapsim status --json | jq '.consumables'"])

    let withJWS: Bool

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
        withJWS = words.flag("jws")
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let status = try session.status(launchingTheApp: true)
        let armed = try session.serverFaults()
        let signed = withJWS ? try session.signedTransactions(status.entitlements, signer: context.signer()) : [:]
        func entitlement(_ transaction: IAPSimKit.Transaction) -> JSON {
            let json = JSON.transaction(transaction, status.storeKitContext)
            guard let jws = signed[transaction.id], case .object(let members) = json else { return json }
            return .object(members + [(Transactions.signedMember.name, .string(jws))])
        }
        /// `Product.SubscriptionInfo.status` per group; null when the simulated Subscription
        /// Status error makes it fail.
        func statusArray(_ statuses: [AccountStatus.SubscriptionStatus]) -> JSON {
            .array(
                statuses.map {
                    $0.storeKitJSON(
                        status.storeKitContext,
                        eligibleWinBackOfferIDs: session.eligibleWinBackOfferIDs(
                            for: $0, among: status.subscriptions))
                })
        }
        let groups: JSON =
            status.subscriptionStatusError != nil
            ? .null
            : .array(
                status.subscriptionGroups.map { group in
                    .object([("subscriptionGroupID", .string(group.groupID)), ("status", statusArray(group.statuses))])
                })
        var report = Report(
            json: .value(
                .object([
                    ("purchasedProductIdentifiers", .array(status.purchasedProductIdentifiers.map(JSON.string))),
                    (
                        "consumables",
                        .object(status.consumables.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
                    ),
                    (
                        "subscriptions",
                        status.subscriptionStatusError == nil
                            ? .array(status.subscriptions.map(JSON.subscription)) : .null
                    ),
                    ("subscriptionGroups", groups),
                    ("entitlements", .array(status.entitlements.map(entitlement))),
                    ("pending", .array(status.pending.map(JSON.pending))),
                    ("expiredRequests", .array(status.expiredRequests.map(JSON.pending))),
                    ("refundRequests", .array(status.refundRequests.map(JSON.refundRequest))),
                    ("unfinishedTransactionIDs", .array(status.unfinishedTransactionIDs.map { JSON.int($0) })),
                    ("transactionCount", .int(status.transactionCount)),
                    ("date", .date(status.now)),
                    ("subscriptionStatusError", status.subscriptionStatusError.map(JSON.error) ?? .null),
                    ("serverErrors", .array(armed.map(\.publicJSON))),
                    (
                        "verification",
                        status.verificationError.map(JSON.unverified) ?? .object([("result", .string("verified"))])
                    ),
                ])),
            text: {
                Self.statusText(status)
                    + armed.map { .line("Server error armed ('iapsim server-error'): \($0.summary)") }
            })
        report.notes = CommandContext.unfinishedNote(status.unfinishedTransactionIDs)
        if let error = status.verificationError {
            report.notes.append(
                "Note: transactions arrive unverified (\(error.qualifiedName), simulated); the app grants none of them."
            )
        }
        if let error = status.subscriptionStatusError {
            // Product.SubscriptionInfo.status(for:) throws; the rest of the status stands.
            report.status = ErrorReport.exitCode(for: error)
            report.errors.append("Error: subscription status failed with \(error.qualifiedName) (simulated).")
        }
        return report
    }
}

extension Status {
    static func statusText(_ status: AccountStatus) -> [Report.Block] {
        if status.purchasedProductIdentifiers.isEmpty && status.consumables.isEmpty && status.subscriptions.isEmpty
            && status.pending.isEmpty && status.expiredRequests.isEmpty && status.refundRequests.isEmpty
        {
            return [.line("No purchases.")]
        }
        var blocks: [Report.Block] = []
        if !status.purchasedProductIdentifiers.isEmpty {
            blocks.append(.line("Purchased products:"))
            blocks += status.purchasedProductIdentifiers.map { .line("  " + $0) }
        }
        if !status.consumables.isEmpty {
            blocks.append(.line("Consumables:"))
            blocks.append(
                .table(
                    rows: status.consumables.sorted { $0.key < $1.key }.map { [$0.key, String($0.value)] }, indent: "  "
                ))
        }
        if status.subscriptionStatusError != nil {
            blocks.append(.line("Subscriptions: unknown (subscription status failed)"))
        } else if !status.subscriptions.isEmpty {
            blocks.append(.line("Subscriptions:"))
            let rows = status.subscriptions.map { subscription in
                let verb =
                    subscription.state == .subscribed && subscription.willAutoRenew
                    ? "renews" : subscription.state == .subscribed ? "expires" : "expired"
                var when = subscription.expirationDate.map { "\(verb) \(ISO8601Date.string($0))" } ?? ""
                if subscription.state == .inGracePeriod, let grace = subscription.gracePeriodExpirationDate {
                    when = "grace period until \(ISO8601Date.string(grace))"
                }
                if subscription.willAutoRenew, subscription.autoRenewProductID != subscription.productID {
                    when += ", then \(subscription.autoRenewProductID)"
                }
                if let increase = subscription.priceIncrease {
                    let consent = increase.status == .pending ? "waiting for consent" : "agreed"
                    when += ", price increase to \(increase.newPrice.plainString) \(consent)"
                }
                if subscription.state == .expired, subscription.expirationReason == .didNotConsentToPriceIncrease {
                    when += " (didNotConsentToPriceIncrease)"
                }
                return [subscription.productID, subscription.state.rawValue, when]
            }
            blocks.append(.table(rows: rows, indent: "  "))
        }
        if !status.pending.isEmpty {
            blocks.append(.line("Pending:"))
            let rows = status.pending.map { request in
                let detail =
                    request.expirationDate.map { "askToBuy, expires \(ISO8601Date.string($0))" }
                    ?? "interrupted: 'iapsim resolve \(request.id)'"
                return [String(request.id), request.productID, detail]
            }
            blocks.append(.table(rows: rows, indent: "  "))
        }
        if !status.refundRequests.isEmpty {
            blocks.append(.line("Refund requests (pending the App Store's decision):"))
            let rows = status.refundRequests.map { request in
                [
                    String(request.transactionID), request.productID,
                    "requested \(ISO8601Date.string(request.requestDate))"
                        + (request.reason.map { " (\($0.rawValue))" } ?? ""),
                ]
            }
            blocks.append(.table(rows: rows, indent: "  "))
        }
        if !status.expiredRequests.isEmpty {
            blocks.append(.line("Expired Ask to Buy requests (declined; nothing was charged):"))
            let rows = status.expiredRequests.map { request in
                let when = request.expirationDate.map(ISO8601Date.string) ?? ""
                return [String(request.id), request.productID, "expired \(when)"]
            }
            blocks.append(.table(rows: rows, indent: "  "))
        }
        return blocks
    }
}

extension JSON {
    static func subscription(_ subscription: AccountStatus.SubscriptionStatus) -> JSON {
        .object([
            ("productID", .string(subscription.productID)),
            ("subscriptionGroupID", .string(subscription.subscriptionGroupID)),
            ("state", .string(subscription.state.rawValue)),
            ("expirationDate", .date(subscription.expirationDate)),
            ("willAutoRenew", .bool(subscription.willAutoRenew)),
            ("autoRenewProductID", .string(subscription.autoRenewProductID)),
            ("gracePeriodExpirationDate", .date(subscription.gracePeriodExpirationDate)),
            ("expirationReason", .optional(subscription.expirationReason?.rawValue)),
            ("isInBillingRetry", .bool(subscription.isInBillingRetry)),
            ("originalID", .int(subscription.originalID)),
            ("priceIncreaseStatus", .string(subscription.priceIncreaseStatus.rawValue)),
            ("priceIncreaseNewPrice", .optional(subscription.priceIncrease?.newPrice.plainString)),
        ])
    }
}
