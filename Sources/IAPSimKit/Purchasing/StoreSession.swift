import Foundation

/// The purchase flow of one app against one account: what `SKPaymentQueue` and StoreKit 2's
/// `Product.purchase()`, `AppStore.sync()` and `Transaction.currentEntitlements` do on a device.
///
/// Only `buy` needs the catalog, and takes the product from it; restore, status and reset work
/// on the state alone, so they run without reading the `.storekit` file.
public struct StoreSession: Sendable {
    public let store: StateStore
    public let now: @Sendable () -> Date

    public init(store: StateStore, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// What a purchase ended with.
    public enum PurchaseOutcome: Sendable, Equatable {
        /// A new transaction: the buyer was charged.
        case purchased(Transaction)
        /// A non-consumable the account already owns: StoreKit's free re-download, no charge,
        /// the existing transaction delivered again.
        case redownloaded(Transaction)
        /// A subscription that is already active: "You're currently subscribed to this."
        case alreadySubscribed(Transaction)

        public var transaction: Transaction {
            switch self {
            case .purchased(let t), .redownloaded(let t), .alreadySubscribed(let t): t
            }
        }
    }

    /// Buys `quantity` of a product in `storefront` and delivers it to the app's record.
    /// - Throws: `PurchaseError` before anything is charged, `StoreError` if the state fails.
    public func buy(_ product: Product, quantity: Int = 1, storefront: Storefront) throws -> PurchaseOutcome {
        let productID = product.id
        if quantity != 1, product.type != .consumable {
            throw PurchaseError.invalidQuantity(productID: productID, quantity: quantity)
        }
        let date = now()
        return try store.update { state in
            let history = state.account.transactions
            switch product.type {
            case .nonConsumable:
                if let owned = history.last(where: { $0.productID == productID && $0.isEntitlement(at: date) }) {
                    state.app.deliver(productID)
                    return .redownloaded(owned)
                }
            case .autoRenewable:
                if let active = history.last(where: { $0.productID == productID && $0.isEntitlement(at: date) }) {
                    state.app.deliver(productID)
                    return .alreadySubscribed(active)
                }
            case .consumable, .nonRenewable:
                break
            }
            var transaction = Transaction(
                id: state.account.nextTransactionID, originalID: state.account.nextTransactionID,
                productID: productID, productType: product.type, purchaseDate: date, originalPurchaseDate: date,
                purchasedQuantity: quantity, price: (product.price * Decimal(quantity)).plainString,
                currency: storefront.currencyCode, storefrontCountryCode: storefront.countryCode)
            if let subscription = product.subscription {
                Self.startSubscription(&transaction, subscription: subscription, price: product.price, state: &state, at: date)
            }
            state.account.nextTransactionID += 1
            state.account.transactions.append(transaction)
            if product.type == .consumable {
                state.app.consumables[productID, default: 0] += quantity
            } else {
                state.app.deliver(productID)
            }
            return .purchased(transaction)
        }
    }

    /// Fills in a new subscription transaction: its chain, its period and any introductory
    /// offer. Within a group the chain keeps one `originalID` across levels and re-subscribes,
    /// as Apple's original transaction identifier does; moving to another level ends the
    /// current one at once.
    private static func startSubscription(
        _ transaction: inout Transaction, subscription: SubscriptionInfo, price: Decimal,
        state: inout PurchaseState, at date: Date
    ) {
        let group = subscription.groupID
        transaction.subscriptionGroupID = group
        let first = state.account.transactions.first { $0.subscriptionGroupID == group }
        if let first {
            transaction.originalID = first.originalID
            transaction.originalPurchaseDate = first.originalPurchaseDate
        }
        for index in state.account.transactions.indices
        where state.account.transactions[index].subscriptionGroupID == group
            && state.account.transactions[index].isEntitlement(at: date)
        {
            state.account.transactions[index].isUpgraded = true
        }
        // An introductory offer is for a first subscription in the group only.
        if first == nil, let offer = subscription.introductoryOffer {
            transaction.offerType = .introductory
            transaction.offerPaymentMode = offer.paymentMode
            switch offer.paymentMode {
            case .freeTrial, .payUpFront:
                var end = date
                for _ in 0..<max(offer.periodCount, 1) { end = offer.period.advance(end) }
                transaction.expirationDate = end
            case .payAsYouGo:
                transaction.expirationDate = offer.period.advance(date)
            }
            transaction.price = offer.price.plainString
        } else {
            transaction.expirationDate = subscription.period.advance(date)
            transaction.price = price.plainString
        }
    }

    /// `AppStore.sync()` / `restoreCompletedTransactions()`: re-delivers to the app's record
    /// every non-consumable and active auto-renewable subscription the account holds.
    /// - Returns: the product identifiers re-delivered, sorted.
    public func restore() throws -> [String] {
        let date = now()
        return try store.update { state in
            let restored = Set(
                state.account.transactions
                    .filter { $0.productType.isRestorable && $0.isEntitlement(at: date) }
                    .map(\.productID))
            for productID in restored { state.app.deliver(productID) }
            return restored.sorted()
        }
    }

    /// What the app and the account hold now.
    public func status() throws -> AccountStatus {
        AccountStatus(state: try store.read(), at: now())
    }

    /// Forgets the app's record, as deleting and reinstalling the app does. The account keeps
    /// its transactions, so `restore` has work to do.
    public func resetApp() throws {
        try store.update { state in state.app = PurchaseState.AppRecord() }
    }

    /// Erases the app's record and the account's history.
    public func resetAll() throws {
        try store.erase()
    }
}
