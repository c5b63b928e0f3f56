import IAPSimKit

extension Runner {
    /// `status`: what the app holds, and each subscription's state.
    /// - Parameter withJWS: add each entitlement's `jwsRepresentation`, signed.
    func status(withJWS: Bool) throws -> Report {
        let (_, session) = try catalogAndSession()
        let status = try session.status(launchingTheApp: true)
        let signed = withJWS ? try session.signedTransactions(status.entitlements, signer: signer()) : [:]
        func entitlement(_ transaction: IAPSimKit.Transaction) -> JSON {
            let json = JSON.transaction(transaction, status.storeKitContext)
            guard let jws = signed[transaction.id], case .object(let members) = json else { return json }
            return .object(members + [("jwsRepresentation", .string(jws))])
        }
        var report = Report(
            json: .value(
                .object([
                    ("purchasedProductIdentifiers", .array(status.purchasedProductIdentifiers.map(JSON.string))),
                    (
                        "consumables",
                        .object(status.consumables.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
                    ),
                    ("subscriptions", .array(status.subscriptions.map(JSON.subscription))),
                    (
                        "subscriptionGroups",
                        .array(
                            status.subscriptionGroups.map { group in
                                .object([
                                    ("subscriptionGroupID", .string(group.groupID)),
                                    ("status", .array(group.statuses.map { $0.storeKitJSON(status.storeKitContext) })),
                                ])
                            })
                    ),
                    ("entitlements", .array(status.entitlements.map(entitlement))),
                    ("pending", .array(status.pending.map(JSON.pending))),
                    ("expiredRequests", .array(status.expiredRequests.map(JSON.pending))),
                    ("unfinishedTransactionIDs", .array(status.unfinishedTransactionIDs.map { JSON.int($0) })),
                    ("transactionCount", .int(status.transactionCount)),
                    ("date", .date(status.now)),
                ])),
            text: { Self.statusText(status) })
        report.notes = Self.unfinishedNote(status.unfinishedTransactionIDs)
        return report
    }

    static func statusText(_ status: AccountStatus) -> [Report.Block] {
        if status.purchasedProductIdentifiers.isEmpty && status.consumables.isEmpty && status.subscriptions.isEmpty
            && status.pending.isEmpty && status.expiredRequests.isEmpty
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
                .table(rows: status.consumables.sorted { $0.key < $1.key }.map { [$0.key, String($0.value)] }, indent: "  "))
        }
        if !status.subscriptions.isEmpty {
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
        ])
    }
}
