import Foundation
import Testing

#if canImport(IAPSimStoreKit)
    import IAPSimStoreKit
    import IAPSimStoreKitTest
#else
    import StoreKit
    import StoreKitTest
#endif

// Purchase code as tutorials and apps write it against Apple's StoreKit, kept here so a change
// that breaks a familiar call breaks the build. Nothing below knows it runs against iapsim.

public typealias ProductIdentifier = String
public typealias ProductsRequestCompletionHandler = (_ success: Bool, _ products: [SKProduct]?) -> Void

final class LegacyIAPHelper: NSObject, @unchecked Sendable {
    private let productIdentifiers: Set<ProductIdentifier>
    private var purchasedProductIdentifiers: Set<ProductIdentifier> = []
    private var productsRequest: SKProductsRequest?
    private var productsRequestCompletionHandler: ProductsRequestCompletionHandler?
    private(set) var lastError: String?

    init(productIds: Set<ProductIdentifier>) {
        productIdentifiers = productIds
        super.init()
        SKPaymentQueue.default().add(self)
    }

    func requestProducts(_ completionHandler: @escaping ProductsRequestCompletionHandler) {
        productsRequest?.cancel()
        productsRequestCompletionHandler = completionHandler
        productsRequest = SKProductsRequest(productIdentifiers: productIdentifiers)
        productsRequest!.delegate = self
        productsRequest!.start()
    }

    func buyProduct(_ product: SKProduct) {
        let payment = SKPayment(product: product)
        SKPaymentQueue.default().add(payment)
    }

    func isProductPurchased(_ productIdentifier: ProductIdentifier) -> Bool {
        purchasedProductIdentifiers.contains(productIdentifier)
    }

    class func canMakePayments() -> Bool { SKPaymentQueue.canMakePayments() }

    func restorePurchases() { SKPaymentQueue.default().restoreCompletedTransactions() }

    func priceString(_ product: SKProduct) -> String? {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = product.priceLocale
        return formatter.string(from: product.price)
    }

    func describe(_ product: SKProduct) -> String {
        var parts = [product.productIdentifier, product.localizedTitle, product.localizedDescription]
        if let period = product.subscriptionPeriod {
            switch period.unit {
            case .day, .week: parts.append("short")
            case .month, .year: parts.append("\(period.numberOfUnits)")
            @unknown default: break
            }
        }
        if let intro = product.introductoryPrice, intro.paymentMode == .freeTrial, intro.type == .introductory {
            parts.append("trial \(intro.numberOfPeriods) \(intro.subscriptionPeriod.numberOfUnits)")
        }
        parts += product.discounts.compactMap(\.identifier)
        parts.append(product.subscriptionGroupIdentifier ?? "")
        parts.append(product.isFamilyShareable ? "family" : "")
        return parts.joined(separator: " ")
    }
}

extension LegacyIAPHelper: SKProductsRequestDelegate {
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        let products = response.products
        for p in products { _ = "\(p.productIdentifier) \(p.localizedTitle) \(p.price.floatValue)" }
        productsRequestCompletionHandler?(true, products)
        clearRequestAndHandler()
    }

    func request(_ request: SKRequest, didFailWithError error: Error) {
        lastError = error.localizedDescription
        productsRequestCompletionHandler?(false, nil)
        clearRequestAndHandler()
    }

    private func clearRequestAndHandler() {
        productsRequest = nil
        productsRequestCompletionHandler = nil
    }
}

extension LegacyIAPHelper: SKPaymentTransactionObserver {
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions {
            switch transaction.transactionState {
            case .purchased:
                complete(transaction: transaction)
            case .failed:
                fail(transaction: transaction)
            case .restored:
                restore(transaction: transaction)
            case .deferred:
                break
            case .purchasing:
                break
            @unknown default:
                break
            }
        }
    }

    private func complete(transaction: SKPaymentTransaction) {
        deliverPurchaseNotificationFor(identifier: transaction.payment.productIdentifier)
        SKPaymentQueue.default().finishTransaction(transaction)
    }

    private func restore(transaction: SKPaymentTransaction) {
        guard let productIdentifier = transaction.original?.payment.productIdentifier else { return }
        deliverPurchaseNotificationFor(identifier: productIdentifier)
        SKPaymentQueue.default().finishTransaction(transaction)
    }

    private func fail(transaction: SKPaymentTransaction) {
        if let transactionError = transaction.error as NSError?,
            let localizedDescription = transaction.error?.localizedDescription,
            transactionError.code != SKError.paymentCancelled.rawValue
        {
            lastError = "Transaction Error: \(localizedDescription)"
        }
        if let error = transaction.error as? SKError, error.code == .paymentNotAllowed {
            lastError = "not allowed"
        }
        SKPaymentQueue.default().finishTransaction(transaction)
    }

    private func deliverPurchaseNotificationFor(identifier: String?) {
        guard let identifier = identifier else { return }
        purchasedProductIdentifiers.insert(identifier)
        NotificationCenter.default.post(name: Notification.Name("IAPHelperPurchaseNotification"), object: identifier)
    }
}

/// A StoreKit 1 test double, as apps' own tests subclass StoreKit's classes.
final class MockProduct: SKProduct, @unchecked Sendable {
    override var productIdentifier: String { "mock.product" }
    override var price: NSDecimalNumber { NSDecimalNumber(string: "1.99") }
    override var priceLocale: Locale { Locale(identifier: "en_US@currency=USD") }
}

final class MockTransaction: SKPaymentTransaction, @unchecked Sendable {
    override var transactionState: SKPaymentTransactionState { .failed }
    override var error: Error? { SKError(.paymentCancelled) }
}

/// StoreKit 2, as Apple's sample "Implementing a store in your app using the StoreKit API"
/// shapes its store.
@MainActor
final class ModernStore {
    enum StoreError: Error { case failedVerification }

    private(set) var consumables: [Product] = []
    private(set) var nonConsumables: [Product] = []
    private(set) var subscriptions: [Product] = []
    private(set) var purchased: [Product] = []
    private(set) var subscriptionStatus: Product.SubscriptionInfo.Status?
    var updateListenerTask: Task<Void, Error>?

    init() {
        updateListenerTask = listenForTransactions()
    }

    deinit { updateListenerTask?.cancel() }

    func listenForTransactions() -> Task<Void, Error> {
        Task.detached {
            for await result in Transaction.updates {
                do {
                    let transaction = try self.checkVerified(result)
                    await self.updateCustomerProductStatus()
                    await transaction.finish()
                } catch {
                    print("Transaction failed verification")
                }
            }
        }
    }

    func requestProducts(_ ids: [String]) async {
        do {
            let storeProducts = try await Product.products(for: ids)
            var newConsumables: [Product] = []
            var newNonConsumables: [Product] = []
            var newSubscriptions: [Product] = []
            for product in storeProducts {
                switch product.type {
                case .consumable: newConsumables.append(product)
                case .nonConsumable: newNonConsumables.append(product)
                case .autoRenewable: newSubscriptions.append(product)
                case .nonRenewable: break
                default: print("Unknown product")
                }
            }
            consumables = newConsumables.sorted { $0.price < $1.price }
            nonConsumables = newNonConsumables
            subscriptions = newSubscriptions
        } catch {
            print("Failed product request from the App Store server: \(error)")
        }
    }

    func purchase(_ product: Product) async throws -> Transaction? {
        let result = try await product.purchase(options: [.appAccountToken(UUID()), .quantity(1)])
        switch result {
        case .success(let verification):
            let transaction = try checkVerified(verification)
            await updateCustomerProductStatus()
            await transaction.finish()
            return transaction
        case .userCancelled, .pending:
            return nil
        @unknown default:
            return nil
        }
    }

    nonisolated func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
        switch result {
        case .unverified:
            throw StoreError.failedVerification
        case .verified(let safe):
            return safe
        }
    }

    func updateCustomerProductStatus() async {
        var owned: [Product] = []
        for await result in Transaction.currentEntitlements {
            do {
                let transaction = try checkVerified(result)
                switch transaction.productType {
                case .nonConsumable, .autoRenewable:
                    if let product = (nonConsumables + subscriptions).first(where: { $0.id == transaction.productID }) {
                        owned.append(product)
                    }
                default:
                    break
                }
            } catch {
                print("Transaction failed verification")
            }
        }
        purchased = owned
        subscriptionStatus = try? await subscriptions.first?.subscription?.status.first
        if let status = subscriptionStatus, case .verified(let renewalInfo) = status.renewalInfo,
            status.state == .subscribed || status.state == .inGracePeriod, renewalInfo.willAutoRenew,
            let preferred = renewalInfo.autoRenewPreference
        {
            _ = preferred
        }
    }

    func details(_ product: Product) async -> String {
        var parts = [product.id, product.displayName, product.description, product.displayPrice]
        parts.append(product.price.formatted(product.priceFormatStyle))
        if let subscription = product.subscription {
            parts.append("\(subscription.subscriptionPeriod.value) \(subscription.subscriptionPeriod.unit)")
            if let offer = subscription.introductoryOffer, offer.paymentMode == .freeTrial {
                parts.append("\(offer.displayPrice) \(offer.period.value) \(offer.periodCount)")
            }
            if await subscription.isEligibleForIntroOffer { parts.append("eligible") }
            parts.append(subscription.subscriptionGroupID)
        }
        if let latest = await product.latestTransaction, case .verified(let transaction) = latest {
            parts.append("\(transaction.purchaseDate) \(String(describing: transaction.expirationDate))")
            parts.append(transaction.environment == .xcode ? "xcode" : transaction.environment.rawValue)
        }
        if let storefront = await Storefront.current { parts.append(storefront.countryCode) }
        parts.append(AppStore.canMakePayments ? "can pay" : "cannot pay")
        return parts.joined(separator: " ")
    }

    func restore() async {
        do {
            try await AppStore.sync()
        } catch StoreKitError.userCancelled {
            print("cancelled")
        } catch {
            print(error.localizedDescription)
        }
        if let result = try? await AppTransaction.shared, case .verified(let app) = result {
            _ = app.originalAppVersion
        }
    }
}

extension StoreKitAPITests {
    @Suite struct AppleStyleSourceTests {
        @Test func legacyHelperLoadsAndBuysThroughTheQueue() async throws {
            _ = try freshSession()
            let helper = LegacyIAPHelper(productIds: ["com.example.app.book"])
            let loaded = Recorder<[SKProduct]>()
            helper.requestProducts { _, products in loaded.append(products ?? []) }
            #expect(await eventually { !loaded.values.isEmpty })
            let book = try #require(loaded.values.first?.first)
            #expect(helper.priceString(book) == "$2.99")
            helper.buyProduct(book)
            #expect(await eventually { helper.isProductPurchased("com.example.app.book") })
            SKPaymentQueue.default().remove(helper)
            #expect(MockProduct().price == NSDecimalNumber(string: "1.99"))
            #expect((MockTransaction().error as? SKError)?.code == .paymentCancelled)
        }

        @Test func aCatchNamesAnSKErrorCodeAsOnApplesPlatforms() {
            func outcome(of error: any Error) -> String {
                do {
                    throw error
                } catch SKError.paymentCancelled {
                    return "cancelled"
                } catch SKError.storeProductNotAvailable {
                    return "unavailable"
                } catch {
                    return "other"
                }
            }
            #expect(outcome(of: SKError(.paymentCancelled)) == "cancelled")
            #expect(outcome(of: SKError(.storeProductNotAvailable)) == "unavailable")
            #expect(outcome(of: SKError(.paymentNotAllowed)) == "other")
            #expect(outcome(of: CocoaError(.fileNoSuchFile)) == "other")
        }

        @Test @MainActor func modernStoreBuysAndSeesItsEntitlement() async throws {
            _ = try freshSession()
            let store = ModernStore()
            await store.requestProducts(["com.example.app.book", "com.example.app.pro.monthly"])
            let book = try #require(store.nonConsumables.first)
            let transaction = try await store.purchase(book)
            #expect(transaction?.productID == "com.example.app.book")
            #expect(store.purchased.map(\.id) == ["com.example.app.book"])
            #expect(await store.details(book).contains("$2.99"))
            await store.restore()
        }
    }
}
