import Foundation

/// `SKPaymentTransactionState`.
public enum SKPaymentTransactionState: Int, Sendable {
    case purchasing = 0
    case purchased = 1
    case failed = 2
    case restored = 3
    case deferred = 4
}

/// StoreKit 1's `SKPaymentTransaction`: a payment in the queue and what became of it.
open class SKPaymentTransaction: NSObject, @unchecked Sendable {
    var _payment: SKPayment
    open var payment: SKPayment { _payment }
    var _transactionState: SKPaymentTransactionState
    open var transactionState: SKPaymentTransactionState { _transactionState }
    /// The App Store's transaction identifier (iapsim's), once purchased or restored.
    var _transactionIdentifier: String?
    open var transactionIdentifier: String? { _transactionIdentifier }
    var _transactionDate: Date?
    open var transactionDate: Date? { _transactionDate }
    /// For a restored transaction, the transaction it restores.
    var _original: SKPaymentTransaction?
    open var original: SKPaymentTransaction? { _original }
    var _error: (any Error)?
    open var error: (any Error)? { _error }
    var _downloads: [SKDownload] = []
    open var downloads: [SKDownload] { _downloads }

    /// The store's transaction, for finishing it.
    var storeID: UInt64?

    public override init() {
        _payment = SKPayment()
        _transactionState = .purchasing
        super.init()
    }

    init(payment: SKPayment, state: SKPaymentTransactionState) {
        self._payment = payment
        self._transactionState = state
        super.init()
    }
}

/// `SKDownload`: hosted content. The simulator hosts none; no transaction has downloads.
open class SKDownload: NSObject, @unchecked Sendable {
    var _contentIdentifier: String = ""
    open var contentIdentifier: String { _contentIdentifier }
    var _contentURL: URL?
    open var contentURL: URL? { _contentURL }
    var _progress: Float = 0
    open var progress: Float { _progress }
    var _timeRemaining: TimeInterval = 0
    open var timeRemaining: TimeInterval { _timeRemaining }
}
