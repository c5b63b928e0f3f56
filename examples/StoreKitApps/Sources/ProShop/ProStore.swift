import StoreKit

/// The app's store, in StoreKit 2's async style: it loads products, buys, listens to
/// `Transaction.updates` for the life of the app, and keeps what the person is entitled to.
@MainActor
public final class ProStore {
    public enum StoreError: Error {
        case failedVerification
    }

    public private(set) var products: [Product] = []
    public private(set) var purchasedProductIDs: Set<String> = []
    /// Consumable coins granted so far.
    public private(set) var coins = 0
    /// Transactions the listener has handled, newest last.
    public private(set) var handledUpdates: [UInt64] = []

    private let productIDs: [String]
    private var updates: Task<Void, Never>?

    public init(productIDs: [String]) {
        self.productIDs = productIDs
        updates = listenForTransactions()
    }

    deinit {
        updates?.cancel()
    }

    public func loadProducts() async throws {
        products = try await Product.products(for: productIDs)
    }

    public func product(_ id: String) -> Product? {
        products.first { $0.id == id }
    }

    /// Buys a product; nil when the person cancelled or the purchase waits for approval.
    @discardableResult
    public func purchase(_ product: Product, askParent: Bool = false) async throws -> Transaction? {
        var options: Set<Product.PurchaseOption> = []
        if askParent { options.insert(.simulatesAskToBuyInSandbox(true)) }
        let result = try await product.purchase(options: options)
        switch result {
        case .success(let verification):
            let transaction = try checkVerified(verification)
            await deliver(transaction)
            await transaction.finish()
            return transaction
        case .userCancelled, .pending:
            return nil
        @unknown default:
            return nil
        }
    }

    public func restore() async throws {
        try await AppStore.sync()
        await refreshEntitlements()
    }

    public func refreshEntitlements() async {
        var entitled: Set<String> = []
        for await result in Transaction.currentEntitlements {
            if case .verified(let transaction) = result, transaction.revocationDate == nil {
                entitled.insert(transaction.productID)
            }
        }
        purchasedProductIDs = entitled
    }

    /// Whether the person's subscription in `groupID` is active now.
    public func isSubscribed(groupID: String) async throws -> Bool {
        let statuses = try await Product.SubscriptionInfo.status(for: groupID)
        return statuses.contains { $0.state == .subscribed || $0.state == .inGracePeriod }
    }

    private func listenForTransactions() -> Task<Void, Never> {
        Task.detached { [weak self] in
            for await result in Transaction.updates {
                guard let self else { return }
                do {
                    let transaction = try await self.checkVerified(result)
                    await self.deliver(transaction)
                    await transaction.finish()
                } catch {
                    // An unverified transaction grants nothing.
                }
            }
        }
    }

    private func deliver(_ transaction: Transaction) async {
        handledUpdates.append(transaction.id)
        if transaction.productType == .consumable, transaction.revocationDate == nil {
            coins += 100 * transaction.purchasedQuantity
        }
        await refreshEntitlements()
    }

    private func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
        switch result {
        case .unverified:
            throw StoreError.failedVerification
        case .verified(let safe):
            return safe
        }
    }
}
