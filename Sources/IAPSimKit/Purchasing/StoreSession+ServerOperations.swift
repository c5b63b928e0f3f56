import Foundation
import IAPSimJSON

/// What a developer's server does to an account through the App Store Server API: extend a
/// subscription's renewal date, tie an app account token to a purchase.
extension StoreSession {
    /// Why the App Store refuses to extend a renewal date.
    public enum ExtensionRefusal: Error, Equatable, Sendable {
        /// No subscription chain has that original transaction identifier.
        case notFound
        /// Apple, "SubscriptionExtensionIneligibleError": only a paid, active subscription can
        /// be extended — not one in a free offer period, in billing retry, past its grace
        /// period's expiration, expired or revoked — by 1–90 days.
        case ineligible(String)
        /// Apple, "SubscriptionMaxExtensionError": two extensions in the last 365 days already.
        case maximumReached
        /// Apple, "FamilySharedSubscriptionExtensionIneligibleError": the customer has the
        /// subscription through Family Sharing; only the purchaser's can be extended.
        case familyShared
    }

    /// The chain's new renewal date after an extension.
    public struct Extension: Sendable, Equatable {
        public var originalID: UInt64
        public var webOrderLineItemID: String
        public var effectiveDate: Date
    }

    /// Extensions a subscription may have in any 365 days (Apple, "Extending the renewal date
    /// for auto-renewable subscriptions": "twice within a year (365 days)").
    public static let extensionsPerYear = 2

    /// How many days one extension may add (Apple, "ExtendRenewalDateRequest": `extendByDays`,
    /// "maximum 90").
    public static let extensionDays = 1...90

    /// Extends the current period of the subscription chain `originalID` by `days` (1–90),
    /// as "Extend a Subscription Renewal Date" does; the App Store notifies `RENEWAL_EXTENDED`.
    /// A `requestIdentifier` the chain was already extended with answers as it did then and
    /// extends nothing: a retried request does not extend twice (Apple leaves repeats open;
    /// this is iapsim's choice).
    /// - Throws: `ExtensionRefusal`.
    /// - Parameter sharedToo: extend a subscription the family organiser shares as well — the
    ///   mass extension extends the organiser's, and with it the family's (Apple, "Extend a
    ///   Subscription Renewal Date": extending a purchased subscription that supports Family
    ///   Sharing "automatically extends the family members' subscriptions as well").
    public func extendRenewalDate(
        originalID: UInt64, days: Int, requestIdentifier: String = UUID().uuidString, sharedToo: Bool = false
    ) throws -> Extension {
        try transact { state, moment in
            try Self.extend(
                originalID: originalID, days: days, requestIdentifier: requestIdentifier, sharedToo: sharedToo,
                in: &state, moment)
        }
    }

    private static func extend(
        originalID: UInt64, days: Int, requestIdentifier: String, sharedToo: Bool, in state: inout PurchaseState,
        _ moment: Moment
    ) throws -> Extension {
        guard let index = state.simulation.renewals.firstIndex(where: { $0.originalID == originalID }),
            let latest = state.account.chainLatest(originalID)
        else { throw ExtensionRefusal.notFound }
        var info = state.simulation.renewals[index]
        if let done = info.extensions.first(where: { $0.requestIdentifier == requestIdentifier }) {
            return Extension(
                originalID: originalID, webOrderLineItemID: done.webOrderLineItemID, effectiveDate: done.effectiveDate)
        }
        guard sharedToo || latest.ownershipType != .familyShared else { throw ExtensionRefusal.familyShared }
        guard Self.extensionDays.contains(days) else {
            throw ExtensionRefusal.ineligible(
                "extendByDays must be \(Self.extensionDays.lowerBound) to \(Self.extensionDays.upperBound)")
        }
        let current = SubscriptionEngine.renewalState(info, latest: latest, at: moment.now)
        guard current == .subscribed, let end = latest.expirationDate else {
            throw ExtensionRefusal.ineligible("the subscription is \(current.rawValue), not active")
        }
        guard latest.offerPaymentMode != .freeTrial else {
            throw ExtensionRefusal.ineligible("the subscription is in a free offer period")
        }
        let yearAgo = moment.now.addingTimeInterval(-365 * 86_400)
        info.extensions.removeAll { $0.date <= yearAgo }
        guard info.extensions.count < extensionsPerYear else { throw ExtensionRefusal.maximumReached }
        var extended = latest
        extended.expirationDate = ISO8601Date.clamped(end.addingTimeInterval(Double(days) * 86_400))
        try state.account.record(extended, isNew: false)
        let result = Extension(
            originalID: originalID, webOrderLineItemID: extended.webOrderLineItemID ?? "",
            effectiveDate: extended.expirationDate ?? end)
        info.extensions.append(
            RenewalExtension(
                requestIdentifier: requestIdentifier, date: moment.now, webOrderLineItemID: result.webOrderLineItemID,
                effectiveDate: result.effectiveDate))
        state.simulation.renewals[index] = info
        state.notify(.renewalExtended, at: moment.now, transaction: extended, renewal: info, status: .active)
        return result
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
        var succeeded = 0
        var failed = 0
        // Every subscriber of the app: each customer's chains, one summary for them all.
        for session in [self] + (try otherAccountSessions()) {
            let counts = try session.extendRenewalDatesOfAccount(
                productID: productID, days: days, requestIdentifier: requestIdentifier,
                storefrontCountryCodes: storefrontCountryCodes)
            succeeded += counts.succeeded
            failed += counts.failed
        }
        let summary = MassExtensionSummary(
            requestIdentifier: requestIdentifier, productID: productID, storefrontCountryCodes: storefrontCountryCodes,
            succeededCount: succeeded, failedCount: failed)
        try transact { state, moment in
            state.notify(.renewalExtension, .summary, at: moment.now, transaction: nil, summary: summary)
        }
        return (succeeded, failed)
    }

    /// Why the App Store refuses to set an app account token (Apple, "Set App Account Token").
    public enum AppAccountTokenRefusal: Error, Equatable, Sendable {
        /// The account has no transaction with that identifier.
        case notFound
        /// The identifier is a transaction's but not its chain's original one
        /// (TransactionIdIsNotOriginalTransactionIdError).
        case notOriginal
        /// The customer has the purchase through Family Sharing (FamilyTransactionNotSupportedError).
        case familyShared
    }

    /// Ties `token` (a UUID) to the chain or purchase `originalID`, as "Set App Account Token"
    /// does: its transactions carry it as `appAccountToken` from now on.
    /// - Throws: `AppAccountTokenRefusal` for an identifier that is not an original
    ///   transaction of the account's own purchases.
    public func setAppAccountToken(_ token: UUID, originalID: UInt64) throws {
        guard let named = try store.transaction(originalID) else { throw AppAccountTokenRefusal.notFound }
        guard named.originalID == originalID else { throw AppAccountTokenRefusal.notOriginal }
        guard named.ownershipType != .familyShared else { throw AppAccountTokenRefusal.familyShared }
        // The chain's members are found through the index before the lock (its chain look-up
        // is for outside a change); each is read again under the lock, in its latest version.
        let ids = try store.chain(originalID).map(\.id)
        try transact { state, _ in
            for id in ids {
                guard var updated = try state.account.current(id: id) ?? store.transaction(id),
                    updated.appAccountToken != token
                else { continue }
                updated.appAccountToken = token
                try state.account.record(updated, isNew: false)
            }
        }
    }
}

extension StoreSession {
    /// The mass extension for this customer's chains alone: how many were extended and how
    /// many could not be (each with its RENEWAL_EXTENSION FAILURE notification).
    func extendRenewalDatesOfAccount(
        productID: String, days: Int, requestIdentifier: String, storefrontCountryCodes: [String]?
    ) throws -> (succeeded: Int, failed: Int) {
        let chains = try status().subscriptions.filter { chain in
            chain.productID == productID && chain.state != .expired && chain.state != .revoked
                && (storefrontCountryCodes?.contains(chain.renewalInfo.storefrontCountryCode) ?? true)
        }
        var succeeded = 0
        var failed = 0
        for chain in chains {
            do {
                _ = try extendRenewalDate(
                    originalID: chain.originalID, days: days, requestIdentifier: requestIdentifier, sharedToo: true)
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
        return (succeeded, failed)
    }

    /// Sessions for the store's other customers.
    func otherAccountSessions() throws -> [StoreSession] {
        ([StateLocation.defaultAccount] + (try store.accountNames())).filter { $0 != store.location.account }.map {
            forAccount($0)
        }
    }
}
