import Foundation

/// `SKPaymentDiscount`: a signed promotional offer to apply to a payment.
open class SKPaymentDiscount: NSObject, @unchecked Sendable {
    open private(set) var identifier: String
    open private(set) var keyIdentifier: String
    open private(set) var nonce: UUID
    open private(set) var signature: String
    open private(set) var timestamp: NSNumber

    public init(identifier: String, keyIdentifier: String, nonce: UUID, signature: String, timestamp: NSNumber) {
        self.identifier = identifier
        self.keyIdentifier = keyIdentifier
        self.nonce = nonce
        self.signature = signature
        self.timestamp = timestamp
        super.init()
    }
}

/// StoreKit 1's `SKPayment`: a request to buy a product.
open class SKPayment: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    open internal(set) var productIdentifier: String = ""
    open internal(set) var quantity: Int = 1
    open internal(set) var requestData: Data?
    open internal(set) var applicationUsername: String?
    open internal(set) var simulatesAskToBuyInSandbox: Bool = false
    open internal(set) var paymentDiscount: SKPaymentDiscount?

    public required override init() { super.init() }

    public init(product: SKProduct) {
        productIdentifier = product.productIdentifier
        super.init()
    }

    open class func payment(with product: SKProduct) -> Self {
        let payment = self.init()
        payment.productIdentifier = product.productIdentifier
        return payment
    }

    @available(*, deprecated, message: "Use payment(with:)")
    open class func payment(withProductIdentifier identifier: String) -> Any {
        let payment = SKPayment()
        payment.productIdentifier = identifier
        return payment
    }

    func copyFields(from payment: SKPayment) {
        productIdentifier = payment.productIdentifier
        quantity = payment.quantity
        requestData = payment.requestData
        applicationUsername = payment.applicationUsername
        simulatesAskToBuyInSandbox = payment.simulatesAskToBuyInSandbox
        paymentDiscount = payment.paymentDiscount
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
        get { super.productIdentifier }
        set { super.productIdentifier = newValue }
    }
    open override var quantity: Int {
        get { super.quantity }
        set { super.quantity = newValue }
    }
    open override var requestData: Data? {
        get { super.requestData }
        set { super.requestData = newValue }
    }
    open override var applicationUsername: String? {
        get { super.applicationUsername }
        set { super.applicationUsername = newValue }
    }
    open override var simulatesAskToBuyInSandbox: Bool {
        get { super.simulatesAskToBuyInSandbox }
        set { super.simulatesAskToBuyInSandbox = newValue }
    }
    open override var paymentDiscount: SKPaymentDiscount? {
        get { super.paymentDiscount }
        set { super.paymentDiscount = newValue }
    }
}
