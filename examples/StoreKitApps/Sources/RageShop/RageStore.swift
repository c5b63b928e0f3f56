// StoreKit alone, as an app file for Apple's platforms imports it: it brings Foundation
// (`NSObject`, `NSLock`, `NumberFormatter`).
import StoreKit

/// The app's in-app purchase helper, in StoreKit 1's delegate style: it asks for products,
/// buys, restores, and keeps the set of product identifiers the app has unlocked.
public final class RageStore: NSObject {
    public enum Event: Equatable {
        case purchased(String)
        case deferred(String)
        case failed(String, cancelled: Bool)
        case restored(String)
        case restoreFinished(count: Int)
        case restoreFailed
        case revoked([String])
    }

    public enum StoreError: Error {
        case noProducts
        case cannotMakePayments
    }

    /// Told of every change, on the main thread, where StoreKit calls the observer.
    public var onEvent: ((Event) -> Void)?
    /// Makes the products request: a test puts a spy here (a subclass of SKProductsRequest).
    public var makeRequest: (Set<String>) -> SKProductsRequest = { SKProductsRequest(productIdentifiers: $0) }

    private let productIdentifiers: Set<String>
    private var productsCompletion: ((Result<[SKProduct], Error>) -> Void)?
    private var productsRequest: SKProductsRequest?
    private let lock = NSLock()
    private var unlocked: Set<String> = []
    private var restoredCount = 0

    public init(productIdentifiers: Set<String>) {
        self.productIdentifiers = productIdentifiers
        super.init()
        SKPaymentQueue.default().add(self)
    }

    deinit {
        SKPaymentQueue.default().remove(self)
    }

    public func isPurchased(_ productIdentifier: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return unlocked.contains(productIdentifier)
    }

    public func requestProducts(_ completion: @escaping (Result<[SKProduct], Error>) -> Void) {
        productsRequest?.cancel()
        productsCompletion = completion
        let request = makeRequest(productIdentifiers)
        request.delegate = self
        request.start()
        productsRequest = request
    }

    public func buy(_ product: SKProduct, askParent: Bool = false) throws {
        guard SKPaymentQueue.canMakePayments() else { throw StoreError.cannotMakePayments }
        let payment = SKMutablePayment(product: product)
        payment.simulatesAskToBuyInSandbox = askParent
        SKPaymentQueue.default().add(payment)
    }

    public func restorePurchases() {
        restoredCount = 0
        SKPaymentQueue.default().restoreCompletedTransactions()
    }

    /// "$2.99" in the product's own locale and currency.
    public static func formattedPrice(of product: SKProduct) -> String? {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = product.priceLocale
        return formatter.string(from: product.price)
    }

    private func unlock(_ productIdentifier: String) {
        lock.lock()
        unlocked.insert(productIdentifier)
        lock.unlock()
    }
}

extension RageStore: SKProductsRequestDelegate {
    public func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        let products = response.products
        productsCompletion?(products.isEmpty ? .failure(StoreError.noProducts) : .success(products))
        productsCompletion = nil
        productsRequest = nil
    }

    public func request(_ request: SKRequest, didFailWithError error: Error) {
        productsCompletion?(.failure(error))
        productsCompletion = nil
        productsRequest = nil
    }
}

extension RageStore: SKPaymentTransactionObserver {
    public func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions {
            let productIdentifier = transaction.payment.productIdentifier
            switch transaction.transactionState {
            case .purchased:
                unlock(productIdentifier)
                queue.finishTransaction(transaction)
                onEvent?(.purchased(productIdentifier))
            case .restored:
                unlock(productIdentifier)
                restoredCount += 1
                queue.finishTransaction(transaction)
                onEvent?(.restored(productIdentifier))
            case .failed:
                let cancelled = (transaction.error as? SKError)?.code == .paymentCancelled
                queue.finishTransaction(transaction)
                onEvent?(.failed(productIdentifier, cancelled: cancelled))
            case .deferred:
                onEvent?(.deferred(productIdentifier))
            case .purchasing:
                break
            @unknown default:
                break
            }
        }
    }

    public func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        onEvent?(.restoreFinished(count: restoredCount))
    }

    public func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: Error) {
        onEvent?(.restoreFailed)
    }

    public func paymentQueue(
        _ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]
    ) {
        lock.lock()
        unlocked.subtract(productIdentifiers)
        lock.unlock()
        onEvent?(.revoked(productIdentifiers))
    }
}
