import Foundation
import IAPSimJSON

/// What a developer's server does to an account through the App Store Server API: extend a
/// subscription's renewal date, tie an app account token to a purchase.
extension StoreSession {
    /// Why the App Store refuses to extend a renewal date.
    public enum ExtensionRefusal: Error, Equatable, Sendable {
        /// No subscription chain has that original transaction identifier.
        case notFound
        /// Apple, "Extend a Subscription Renewal Date": only active subscriptions (not in
        /// billing retry, not revoked) can be extended, by 1–90 days.
        case ineligible(String)
    }

    /// The chain's new renewal date after an extension.
    public struct Extension: Sendable, Equatable {
        public var originalID: UInt64
        public var webOrderLineItemID: String
        public var effectiveDate: Date
    }

    /// Extends the current period of the subscription chain `originalID` by `days` (1–90),
    /// as "Extend a Subscription Renewal Date" does; the App Store notifies `RENEWAL_EXTENDED`.
    public func extendRenewalDate(originalID: UInt64, days: Int) throws -> Extension {
        try transact { state, moment in
            guard let index = state.simulation.renewals.firstIndex(where: { $0.originalID == originalID }),
                let latest = state.account.chainLatest(originalID)
            else { throw ExtensionRefusal.notFound }
            let info = state.simulation.renewals[index]
            guard (1...90).contains(days) else { throw ExtensionRefusal.ineligible("extendByDays must be 1 to 90") }
            let current = SubscriptionEngine.renewalState(info, latest: latest, at: moment.now)
            guard current == .subscribed, let end = latest.expirationDate else {
                throw ExtensionRefusal.ineligible("the subscription is \(current.rawValue), not active")
            }
            var extended = latest
            extended.expirationDate = ISO8601Date.clamped(end.addingTimeInterval(Double(days) * 86_400))
            try state.account.record(extended, isNew: false)
            state.notify(.renewalExtended, at: moment.now, transaction: extended, renewal: info, status: .active)
            return Extension(
                originalID: originalID, webOrderLineItemID: extended.webOrderLineItemID ?? "",
                effectiveDate: extended.expirationDate ?? end)
        }
    }

    /// Extends every subscription to `productID` by `days`, as "Extend Subscription Renewal
    /// Dates for All Active Subscribers" does. Its subscribers are the chains of the product that
    /// have not ended (expired or revoked ones are not), in the storefronts the request names
    /// (all when it names none). Each one extended is notified `RENEWAL_EXTENDED`, each one that
    /// cannot be `RENEWAL_EXTENSION` / `FAILURE`, and the whole `RENEWAL_EXTENSION` / `SUMMARY`
    /// with its `summary` (Apple, "notificationType", "summary").
    /// - Parameters:
    ///   - requestIdentifier: the request's `requestIdentifier`, which the summary names.
    ///   - storefrontCountryCodes: the request's storefronts (alpha-3), nil for all.
    /// - Returns: how many were extended and how many could not be.
    @discardableResult
    public func extendAllRenewalDates(
        productID: String, days: Int, requestIdentifier: String = UUID().uuidString.lowercased(),
        storefrontCountryCodes: [String]? = nil
    ) throws -> (succeeded: Int, failed: Int) {
        let chains = try status().subscriptions.filter { chain in
            chain.productID == productID && chain.state != .expired && chain.state != .revoked
                && (storefrontCountryCodes?.contains(chain.renewalInfo.storefrontCountryCode) ?? true)
        }
        var succeeded = 0
        var failed = 0
        for chain in chains {
            do {
                _ = try extendRenewalDate(originalID: chain.originalID, days: days)
                succeeded += 1
            } catch is ExtensionRefusal {
                failed += 1
                try transact { state, moment in
                    guard let info = state.simulation.renewals.first(where: { $0.originalID == chain.originalID }),
                        let latest = state.account.chainLatest(chain.originalID)
                    else { return }
                    state.notify(
                        .renewalExtension, .failure, at: moment.now, transaction: latest, renewal: info,
                        status: PurchaseState.notificationStatus(info, latest: latest, at: moment.now))
                }
            }
        }
        let summary = MassExtensionSummary(
            requestIdentifier: requestIdentifier, productID: productID, storefrontCountryCodes: storefrontCountryCodes,
            succeededCount: succeeded, failedCount: failed)
        try transact { state, moment in
            state.notify(.renewalExtension, .summary, at: moment.now, transaction: nil, summary: summary)
        }
        return (succeeded, failed)
    }

    /// Ties `token` (a UUID) to the chain or purchase `originalID`, as "Set App Account Token"
    /// does: its transactions carry it as `appAccountToken` from now on.
    /// - Returns: false when the account has no such original transaction.
    public func setAppAccountToken(_ token: String, originalID: UInt64) throws -> Bool {
        // The chain's members are found through the index before the lock (its chain look-up
        // is for outside a change); each is read again under the lock, in its latest version.
        let ids = try store.chain(originalID).map(\.id)
        guard !ids.isEmpty else { return false }
        return try transact { state, _ in
            for id in ids {
                guard var updated = try state.account.current(id: id) ?? store.transaction(id),
                    updated.appAccountToken != token
                else { continue }
                updated.appAccountToken = token
                try state.account.record(updated, isNew: false)
            }
            return true
        }
    }
}
