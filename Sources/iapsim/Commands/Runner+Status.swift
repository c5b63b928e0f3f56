import IAPSimKit

extension Runner {
    /// `status`: what the app holds, and each subscription's state.
    func status() throws -> ExitCode {
        let status = try session().status()
        if options.json {
            emit(.object([
                ("purchasedProductIdentifiers", .array(status.purchasedProductIdentifiers.map(JSON.string))),
                ("consumables", .object(status.consumables.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                ("subscriptions", .array(status.subscriptions.map { subscription in
                    .object([
                        ("productID", .string(subscription.productID)),
                        ("subscriptionGroupID", .string(subscription.subscriptionGroupID)),
                        ("state", .string(subscription.state.rawValue)),
                        ("expirationDate", .date(subscription.expirationDate)),
                        ("originalID", .int(subscription.originalID)),
                    ])
                })),
                ("entitlements", .array(status.entitlements.map(JSON.transaction))),
                ("transactionCount", .int(status.transactionCount)),
            ]))
            return .success
        }
        if status.purchasedProductIdentifiers.isEmpty && status.consumables.isEmpty && status.subscriptions.isEmpty {
            console.out("No purchases.")
            return .success
        }
        if !status.purchasedProductIdentifiers.isEmpty {
            console.out("Purchased products:")
            status.purchasedProductIdentifiers.forEach { console.out("  " + TerminalText.escaped($0)) }
        }
        if !status.consumables.isEmpty {
            console.out("Consumables:")
            TerminalText.table(status.consumables.sorted { $0.key < $1.key }.map { [TerminalText.escaped($0.key), String($0.value)] })
                .forEach { console.out("  " + $0) }
        }
        if !status.subscriptions.isEmpty {
            console.out("Subscriptions:")
            TerminalText.table(status.subscriptions.map { subscription in
                let verb = subscription.state == .subscribed ? "expires" : "expired"
                let expiry = subscription.expirationDate.map { "\(verb) \(ISO8601.string($0))" } ?? ""
                return [TerminalText.escaped(subscription.productID), subscription.state.rawValue, expiry]
            }).forEach { console.out("  " + $0) }
        }
        return .success
    }
}
