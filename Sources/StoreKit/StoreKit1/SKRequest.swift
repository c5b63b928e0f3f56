import Dispatch
import Foundation
import IAPSimKit

/// What every StoreKit 1 request tells its delegate; both methods are optional.
public protocol SKRequestDelegate: NSObjectProtocol {
    func requestDidFinish(_ request: SKRequest)
    func request(_ request: SKRequest, didFailWithError error: any Error)
}

extension SKRequestDelegate {
    public func requestDidFinish(_ request: SKRequest) {}
    public func request(_ request: SKRequest, didFailWithError error: any Error) {}
}

/// What an `SKProductsRequest` tells its delegate.
public protocol SKProductsRequestDelegate: SKRequestDelegate {
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse)
}

/// StoreKit 1's `SKRequest`. `start()` returns at once; the delegate hears of the result
/// later, on `SKPaymentQueue.callbackQueue` (the queue observers are called on too).
open class SKRequest: NSObject, @unchecked Sendable {
    /// The delegate, held weakly as Apple holds it.
    weak open var delegate: (any SKRequestDelegate)?
    private let lock = NSLock()
    private var cancelled = false
    /// Keeps the request alive while it runs, as StoreKit does (apps often keep no reference).
    private var running: SKRequest?

    open func start() {
        lock.withLock {
            cancelled = false
            running = self
        }
        SKPaymentQueue.callbackQueue.async {
            let outcome = Result { try self.perform() }
            guard self.lock.withLock({ !self.cancelled }) else { return self.finishRunning() }
            switch outcome {
            case .success: self.delegate?.requestDidFinish(self)
            case .failure(let error): self.delegate?.request(self, didFailWithError: error)
            }
            self.finishRunning()
        }
    }

    open func cancel() {
        lock.withLock { cancelled = true }
    }

    private func finishRunning() { lock.withLock { running = nil } }

    /// The request's work, on the callback queue; it tells its own delegate of a response.
    func perform() throws {}
}

/// `SKProductsResponse`.
open class SKProductsResponse: NSObject, @unchecked Sendable {
    var _products: [SKProduct]
    open var products: [SKProduct] { _products }
    var _invalidProductIdentifiers: [String]
    open var invalidProductIdentifiers: [String] { _invalidProductIdentifiers }

    init(products: [SKProduct], invalidProductIdentifiers: [String]) {
        self._products = products
        self._invalidProductIdentifiers = invalidProductIdentifiers
        super.init()
    }

    /// An empty response: NSObject's initialiser, which test doubles that subclass the
    /// response (overriding `products`) call.
    public override init() {
        self._products = []
        self._invalidProductIdentifiers = []
        super.init()
    }
}

/// `SKProductsRequest`: `iapsim list-products`'s operation (`requestProducts`) for the
/// identifiers asked for.
open class SKProductsRequest: SKRequest, @unchecked Sendable {
    let productIdentifiers: Set<String>

    public init(productIdentifiers: Set<String>) {
        self.productIdentifiers = productIdentifiers
        super.init()
    }

    /// A request for no products: NSObject's initialiser, which test spies that subclass the
    /// request call (`super.init()`).
    public override init() {
        self.productIdentifiers = []
        super.init()
    }

    override func perform() throws {
        let response: SKProductsResponse
        do {
            response = try StoreRuntime.shared.withStore { catalog, session in
                // Apple gives no order; the identifiers' sorted order keeps a run repeatable.
                let result = try session.requestProducts(productIdentifiers.sorted(), in: catalog)
                return SKProductsResponse(
                    products: result.products.map { SKProduct($0, catalog: catalog, locale: result.localeIdentifier) },
                    invalidProductIdentifiers: result.invalidProductIdentifiers)
            }
        } catch {
            throw SKPaymentQueue.skError(error)
        }
        (delegate as? any SKProductsRequestDelegate)?.productsRequest(self, didReceive: response)
    }
}

/// `SKReceiptRefreshRequest`: writes the app receipt afresh (`AppReceiptFile`).
open class SKReceiptRefreshRequest: SKRequest, @unchecked Sendable {
    var _receiptProperties: [String: Any]?
    open var receiptProperties: [String: Any]? { _receiptProperties }

    public init(receiptProperties properties: [String: Any]? = nil) {
        _receiptProperties = properties
        super.init()
    }

    override func perform() throws {
        do {
            try AppReceiptFile.write()
        } catch {
            throw SKPaymentQueue.skError(error)
        }
    }
}
