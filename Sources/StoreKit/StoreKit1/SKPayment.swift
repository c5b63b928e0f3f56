import Foundation

/// `SKPaymentDiscount`: a signed promotional offer to apply to a payment.
open class SKPaymentDiscount: NSObject, @unchecked Sendable {
    var _identifier: String
    open var identifier: String { _identifier }
    var _keyIdentifier: String
    open var keyIdentifier: String { _keyIdentifier }
    var _nonce: UUID
    open var nonce: UUID { _nonce }
    var _signature: String
    open var signature: String { _signature }
    var _timestamp: NSNumber
    open var timestamp: NSNumber { _timestamp }

    public init(identifier: String, keyIdentifier: String, nonce: UUID, signature: String, timestamp: NSNumber) {
        self._identifier = identifier
        self._keyIdentifier = keyIdentifier
        self._nonce = nonce
        self._signature = signature
        self._timestamp = timestamp
        super.init()
    }
}

/// StoreKit 1's `SKPayment`: a request to buy a product.
open class SKPayment: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    var _productIdentifier: String = ""
    open var productIdentifier: String { _productIdentifier }
    var _quantity: Int = 1
    open var quantity: Int { _quantity }
    var _requestData: Data?
    open var requestData: Data? { _requestData }
    var _applicationUsername: String?
    open var applicationUsername: String? { _applicationUsername }
    var _simulatesAskToBuyInSandbox: Bool = false
    open var simulatesAskToBuyInSandbox: Bool { _simulatesAskToBuyInSandbox }
    var _paymentDiscount: SKPaymentDiscount?
    open var paymentDiscount: SKPaymentDiscount? { _paymentDiscount }

    public required override init() { super.init() }

    public init(product: SKProduct) {
        _productIdentifier = product.productIdentifier
        super.init()
    }

    open class func payment(with product: SKProduct) -> Self {
        let payment = self.init()
        payment._productIdentifier = product.productIdentifier
        return payment
    }

    @available(*, deprecated, message: "Use payment(with:)")
    open class func payment(withProductIdentifier identifier: String) -> Any {
        let payment = SKPayment()
        payment._productIdentifier = identifier
        return payment
    }

    func copyFields(from payment: SKPayment) {
        _productIdentifier = payment.productIdentifier
        _quantity = payment.quantity
        _requestData = payment.requestData
        _applicationUsername = payment.applicationUsername
        _simulatesAskToBuyInSandbox = payment.simulatesAskToBuyInSandbox
        _paymentDiscount = payment.paymentDiscount
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = SKPayment()
        copy.copyFields(from: self)
        return copy
    }

    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = SKMutablePayment()
        copy.copyFields(from: self)
        return copy
    }
}

/// `SKMutablePayment`: a payment whose fields the app sets.
open class SKMutablePayment: SKPayment, @unchecked Sendable {
    open override var productIdentifier: String {
        get { _productIdentifier }
        set { _productIdentifier = newValue }
    }
    open override var quantity: Int {
        get { _quantity }
        set { _quantity = newValue }
    }
    open override var requestData: Data? {
        get { _requestData }
        set { _requestData = newValue }
    }
    open override var applicationUsername: String? {
        get { _applicationUsername }
        set { _applicationUsername = newValue }
    }
    open override var simulatesAskToBuyInSandbox: Bool {
        get { _simulatesAskToBuyInSandbox }
        set { _simulatesAskToBuyInSandbox = newValue }
    }
    open override var paymentDiscount: SKPaymentDiscount? {
        get { _paymentDiscount }
        set { _paymentDiscount = newValue }
    }
}
