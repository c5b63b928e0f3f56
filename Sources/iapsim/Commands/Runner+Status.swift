import IAPSimKit

extension Runner {
    /// `status`: what the app holds, and each subscription's state.
    func status() throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let status = try session.status()
        defer { noteUnfinished(status.unfinishedTransactionIDs) }
        if options.json {
            emit(
                .object([
                    ("purchasedProductIdentifiers", .array(status.purchasedProductIdentifiers.map(JSON.string))),
                    (
                        "consumables",
                        .object(status.consumables.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
                    ),
                    ("subscriptions", .array(status.subscriptions.map(JSON.subscription))),
                    ("entitlements", .array(status.entitlements.map(JSON.transaction))),
                    ("pending", .array(status.pending.map(JSON.pending))),
                    ("unfinishedTransactionIDs", .array(status.unfinishedTransactionIDs.map { JSON.int($0) })),
                    ("transactionCount", .int(status.transactionCount)),
                    ("date", .date(status.now)),
                ]))
            return .success
        }
        if status.purchasedProductIdentifiers.isEmpty && status.consumables.isEmpty && status.subscriptions.isEmpty
            && status.pending.isEmpty
        {
            console.out("No purchases.")
            return .success
        }
        if !status.purchasedProductIdentifiers.isEmpty {
            console.out("Purchased products:")
            status.purchasedProductIdentifiers.forEach { console.out("  " + TerminalText.escaped($0)) }
        }
        if !status.consumables.isEmpty {
            console.out("Consumables:")
            TerminalText.table(
                status.consumables.sorted { $0.key < $1.key }.map { [TerminalText.escaped($0.key), String($0.value)] }
            )
            .forEach { console.out("  " + $0) }
        }
        if !status.subscriptions.isEmpty {
            console.out("Subscriptions:")
            TerminalText.table(
                status.subscriptions.map { subscription in
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
                    return [TerminalText.escaped(subscription.productID), subscription.state.rawValue, when]
                }
            ).forEach { console.out("  " + $0) }
        }
        if !status.pending.isEmpty {
            console.out("Pending:")
            TerminalText.table(
                status.pending.map { [String($0.id), TerminalText.escaped($0.productID), $0.reason.rawValue] }
            )
            .forEach { console.out("  " + $0) }
        }
        return .success
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
            ("originalID", .int(subscription.originalID)),
        ])
    }
}
