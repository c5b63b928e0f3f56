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
    open internal(set) var payment: SKPayment
    open internal(set) var transactionState: SKPaymentTransactionState
    /// The App Store's transaction identifier (iapsim's), once purchased or restored.
    open internal(set) var transactionIdentifier: String?
    open internal(set) var transactionDate: Date?
    /// For a restored transaction, the transaction it restores.
    open internal(set) var original: SKPaymentTransaction?
    open internal(set) var error: (any Error)?
    open private(set) var downloads: [SKDownload] = []

    /// The store's transaction, for finishing it.
    var storeID: UInt64?

    init(payment: SKPayment, state: SKPaymentTransactionState) {
        self.payment = payment
        self.transactionState = state
        super.init()
    }
}

/// `SKDownload`: hosted content. The simulator hosts none; no transaction has downloads.
open class SKDownload: NSObject, @unchecked Sendable {
    open private(set) var contentIdentifier: String = ""
    open private(set) var contentURL: URL?
    open private(set) var progress: Float = 0
    open private(set) var timeRemaining: TimeInterval = 0
}
