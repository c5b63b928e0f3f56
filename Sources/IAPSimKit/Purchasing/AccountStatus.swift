import Foundation

/// A snapshot of what is owned, for `iapsim status`: the app's record, and from the account's
/// history each subscription's state, like RevenueCat's `CustomerInfo`.
public struct AccountStatus: Sendable, Equatable {
    public var now: Date
    public var purchasedProductIdentifiers: [String]
    public var consumables: [String: Int]
    /// `Transaction.currentEntitlements`: the latest transaction of each non-consumable and
    /// non-renewing subscription not revoked, and of each auto-renewable subscription that is
    /// subscribed or in its grace period.
    public var entitlements: [Transaction]
    /// Each auto-renewable subscription chain the account ever had.
    public var subscriptions: [SubscriptionStatus]
    /// As the app sees it (`status(launchingTheApp:)`): the simulated Subscription Status
    /// error, with which `Product.SubscriptionInfo.status` fails, and the Verification error,
    /// with which every transaction arrives `unverified`. Nil on the server side.
    public var subscriptionStatusError: SimulatedError?
    public var verificationError: SimulatedError?
    public var pending: [PendingPurchase]
    /// Ask to Buy requests that expired unanswered: declined, nothing charged.
    public var expiredRequests: [PendingPurchase]
    public var unfinishedTransactionIDs: [UInt64]
    /// Refunds the customer asked for that the App Store has not decided.
    public var refundRequests: [RefundRequest]
    public var transactionCount: Int
    /// The subscription groups the account ever subscribed in.
    public var subscribedGroups: Set<String>
    /// What StoreKit 2 adds to each transaction read now (`signedDate`, `appTransactionID`).
    public var storeKitContext: StoreKitContext

    public struct SubscriptionStatus: Sendable, Equatable {
        /// `Product.SubscriptionInfo.RenewalState` raw values.
        public enum State: String, Sendable {
            case subscribed, expired, inBillingRetryPeriod, inGracePeriod, revoked
        }

        public var productID: String
        public var subscriptionGroupID: String
        public var state: State
        public var expirationDate: Date?
        public var originalID: UInt64
        public var willAutoRenew: Bool
        public var autoRenewProductID: String
        public var gracePeriodExpirationDate: Date?
        public var expirationReason: RenewalInfo.ExpirationReason?
        /// `RenewalInfo.isInBillingRetry`: true in the grace period and in billing retry.
        public var isInBillingRetry: Bool
        /// A price increase that applies to the next renewal, pending or agreed; nil when
        /// `priceIncreaseStatus` is `noIncreasePending`.
        public var priceIncrease: PriceIncrease? = nil
        /// `RenewalInfo.priceIncreaseStatus`, as the chain's renewal info says it
        /// (`RenewalInfo.facts`).
        public var priceIncreaseStatus: RenewalInfo.PriceIncreaseStatus = .noIncreasePending
        /// `Status.transaction`: the chain's newest transaction.
        public var transaction: Transaction
        /// `Status.renewalInfo`, as recorded; `RenewalInfo.facts` says what it shows.
        public var renewalInfo: RenewalInfo
    }

    /// `Product.SubscriptionInfo.status(for:)` of each group the account subscribed in, in
    /// the order of `subscriptions`: one status per chain, the account's own and any shared
    /// by the family.
    public var subscriptionGroups: [(groupID: String, statuses: [SubscriptionStatus])] {
        var groups: [(groupID: String, statuses: [SubscriptionStatus])] = []
        for subscription in subscriptions {
            if let index = groups.firstIndex(where: { $0.groupID == subscription.subscriptionGroupID }) {
                groups[index].statuses.append(subscription)
            } else {
                groups.append((subscription.subscriptionGroupID, [subscription]))
            }
        }
        return groups
    }

    public init(state: PurchaseState, at date: Date, environment: AppStoreEnvironment = .sandbox) {
        now = date
        purchasedProductIdentifiers = state.app.purchasedProductIdentifiers
        consumables = state.app.consumables
        pending = state.simulation.pending
        expiredRequests = state.simulation.expiredRequests
        unfinishedTransactionIDs = state.simulation.unfinishedTransactionIDs
        refundRequests = state.simulation.refundRequests
        transactionCount = state.account.transactionCount
        subscribedGroups = Set(state.account.current.compactMap(\.subscriptionGroupID))
        storeKitContext = StoreKitContext(
            signedDate: date,
            appTransactionID: state.account.appTransactionID
                ?? StoreSession.appTransactionID(firstUse: date, customer: state.account.customerNumber),
            environment: environment)
        var entitlements = state.account.current.filter {
            ($0.productType == .nonConsumable || $0.productType == .nonRenewable) && $0.isEntitlement(at: date)
        }
        subscriptions = SubscriptionEngine.chains(in: state).map { info, latest in
            let renewalState = SubscriptionEngine.renewalState(info, latest: latest, at: date)
            if renewalState == .subscribed || renewalState == .inGracePeriod { entitlements.append(latest) }
            let facts = info.facts(latest: latest, state: renewalState)
            return SubscriptionStatus(
                productID: latest.productID, subscriptionGroupID: info.subscriptionGroupID, state: renewalState,
                expirationDate: latest.expirationDate, originalID: info.originalID,
                willAutoRenew: facts.willAutoRenew,
                autoRenewProductID: info.autoRenewProductID, gracePeriodExpirationDate: info.gracePeriodExpirationDate,
                expirationReason: info.expirationReason, isInBillingRetry: info.isInBillingRetry,
                priceIncrease: facts.priceIncreaseStatus == .noIncreasePending ? nil : info.priceIncrease,
                priceIncreaseStatus: facts.priceIncreaseStatus, transaction: latest, renewalInfo: info)
        }
        self.entitlements = entitlements
    }

    /// What the app holds of a product.
    public enum Ownership: Sendable, Equatable {
        /// A consumable's balance (0 when none is left).
        case balance(Int)
        /// An auto-renewable subscription that is active (subscribed or in its grace period).
        case subscribed
        /// A non-consumable or non-renewing subscription in the app's record.
        case owned
        case notOwned

        /// Whether the app has the product at all: a positive balance, or access.
        public var isOwned: Bool {
            switch self {
            case .balance(let count): count > 0
            case .subscribed, .owned: true
            case .notOwned: false
            }
        }
    }

    /// What the app holds of `product`: a consumable's balance; for a subscription whether
    /// it is active now; otherwise whether the app's record has it.
    public func ownership(of product: Product) -> Ownership {
        switch product.type {
        case .consumable: .balance(consumables[product.id] ?? 0)
        case .autoRenewable: isEntitled(to: product.id) ? .subscribed : .notOwned
        case .nonConsumable, .nonRenewable: purchasedProductIdentifiers.contains(product.id) ? .owned : .notOwned
        }
    }

    /// `Product.SubscriptionInfo.isEligibleForIntroOffer`: once per subscription group (Apple,
    /// "Implementing introductory offers in your app").
    public func isEligibleForIntroOffer(group: String) -> Bool {
        !subscribedGroups.contains(group)
    }

    /// Whether the account is entitled to `productID` now.
    public func isEntitled(to productID: String) -> Bool {
        entitlements.contains { $0.productID == productID }
    }
}
