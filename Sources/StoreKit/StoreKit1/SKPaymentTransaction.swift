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
///
/// The queue sets its fields on its callback queue while the app may read them from any
/// thread (a task polling `transactionState`, a view): each is read and written under a lock,
/// so a reader sees the value before or after, never a torn one.
open class SKPaymentTransaction: NSObject, @unchecked Sendable {
    private struct Fields {
        var payment: SKPayment
        var transactionState: SKPaymentTransactionState
        var transactionIdentifier: String?
        var transactionDate: Date?
        var original: SKPaymentTransaction?
        var error: (any Error)?
        var downloads: [SKDownload] = []
        var storeID: UInt64?
    }

    private let lock = NSLock()
    private var fields: Fields

    private func field<Value>(_ path: WritableKeyPath<Fields, Value>) -> Value {
        lock.withLock { fields[keyPath: path] }
    }
    private func set<Value>(_ path: WritableKeyPath<Fields, Value>, _ value: Value) {
        lock.withLock { fields[keyPath: path] = value }
    }

    var _payment: SKPayment {
        get { field(\.payment) }
        set { set(\.payment, newValue) }
    }
    open var payment: SKPayment { _payment }
    var _transactionState: SKPaymentTransactionState {
        get { field(\.transactionState) }
        set { set(\.transactionState, newValue) }
    }
    open var transactionState: SKPaymentTransactionState { _transactionState }
    /// The App Store's transaction identifier (iapsim's), once purchased or restored.
    var _transactionIdentifier: String? {
        get { field(\.transactionIdentifier) }
        set { set(\.transactionIdentifier, newValue) }
    }
    open var transactionIdentifier: String? { _transactionIdentifier }
    var _transactionDate: Date? {
        get { field(\.transactionDate) }
        set { set(\.transactionDate, newValue) }
    }
    open var transactionDate: Date? { _transactionDate }
    /// For a restored transaction, the transaction it restores.
    var _original: SKPaymentTransaction? {
        get { field(\.original) }
        set { set(\.original, newValue) }
    }
    open var original: SKPaymentTransaction? { _original }
    var _error: (any Error)? {
        get { field(\.error) }
        set { set(\.error, newValue) }
    }
    open var error: (any Error)? { _error }
    var _downloads: [SKDownload] {
        get { field(\.downloads) }
        set { set(\.downloads, newValue) }
    }
    open var downloads: [SKDownload] { _downloads }

    /// The store's transaction, for finishing it.
    var storeID: UInt64? {
        get { field(\.storeID) }
        set { set(\.storeID, newValue) }
    }

    public override init() {
        fields = Fields(payment: SKPayment(), transactionState: .purchasing)
        super.init()
    }

    init(payment: SKPayment, state: SKPaymentTransactionState) {
        fields = Fields(payment: payment, transactionState: state)
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
