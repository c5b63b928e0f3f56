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

/// `SKDownloadState`, with Apple's raw values.
public enum SKDownloadState: Int, Sendable {
    case waiting = 0
    case active, paused, finished, failed, cancelled
}

/// `SKDownloadTimeRemainingUnknown`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public let SKDownloadTimeRemainingUnknown: TimeInterval = -1

/// `SKDownload`: content hosted by the App Store. Apple no longer supports hosted content
/// ("SKDownload": deprecated, "Hosted content is no longer supported"), and the simulator hosts
/// none: no transaction has downloads, and a download started anyway fails (see
/// `SKPaymentQueue.start(_:)`).
open class SKDownload: NSObject, @unchecked Sendable {
    var _contentIdentifier: String = ""
    open var contentIdentifier: String { _contentIdentifier }
    var _contentURL: URL?
    open var contentURL: URL? { _contentURL }
    var _progress: Float = 0
    open var progress: Float { _progress }
    var _timeRemaining: TimeInterval = SKDownloadTimeRemainingUnknown
    open var timeRemaining: TimeInterval { _timeRemaining }
    var _state: SKDownloadState = .waiting
    open var state: SKDownloadState { _state }
    @available(*, deprecated, renamed: "state")
    open var downloadState: SKDownloadState { _state }
    var _expectedContentLength: Int64 = 0
    open var expectedContentLength: Int64 { _expectedContentLength }
    @available(*, deprecated, renamed: "expectedContentLength")
    open var contentLength: Int64 { _expectedContentLength }
    var _contentVersion: String = ""
    open var contentVersion: String { _contentVersion }
    var _error: (any Error)?
    open var error: (any Error)? { _error }
    var _transaction = SKPaymentTransaction()
    open var transaction: SKPaymentTransaction { _transaction }
}
