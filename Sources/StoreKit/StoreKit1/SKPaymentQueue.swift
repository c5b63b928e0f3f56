import Dispatch
import Foundation
import IAPSimKit

/// StoreKit 1's `SKPaymentQueue`: payments in, transactions out to the observers.
///
/// Apple calls observers and request delegates on the main thread, and app code relies on it
/// (it updates its interface there; a test asserts what the observer did once `wait(for:)`
/// returns). So does this queue: every observer and delegate call goes through
/// `SKPaymentQueue.callbackQueue`, the main queue unless a program chooses otherwise, in
/// order, after the call that caused it has returned. XCTest's `wait(for:timeout:)`,
/// `RunLoop.main.run(until:)`, `dispatchMain()`, an `async` `main` and Swift Testing all
/// service the main queue. A program that never does (a command-line tool blocked in a loop)
/// sets `SKPaymentQueue.callbackQueue` to a queue of its own before its first StoreKit call.
open class SKPaymentQueue: NSObject, @unchecked Sendable {
    private static let callbackLock = NSLock()
    nonisolated(unsafe) private static var chosenCallbackQueue = DispatchQueue.main

    /// The serial queue observers and request delegates are called on: the main queue, as on
    /// Apple's platforms. iapsim's own addition (Apple's has no such property), for programs
    /// that never service the main queue.
    public static var callbackQueue: DispatchQueue {
        get { callbackLock.withLock { chosenCallbackQueue } }
        set { callbackLock.withLock { chosenCallbackQueue = newValue } }
    }

    private static let shared = SKPaymentQueue()

    private final class WeakObserver {
        weak var value: (any SKPaymentTransactionObserver)?
        init(_ value: any SKPaymentTransactionObserver) { self.value = value }
    }

    private let lock = NSLock()
    private var observers: [WeakObserver] = []
    private var queued: [SKPaymentTransaction] = []
    private var subscription: UUID?
    private var launched = false
    /// The store's transactions the queue has handed to the app since its launch, finished or
    /// not: each arrives once.
    private var delivered: Set<UInt64> = []

    weak open var delegate: (any SKPaymentQueueDelegate)?

    public override init() { super.init() }

    /// The queue of the app.
    open class func `default`() -> SKPaymentQueue { shared }

    /// Whether the person may pay: the session's `payments-allowed` setting.
    open class func canMakePayments() -> Bool { AppStore.canMakePayments }

    /// The transactions waiting to be finished.
    open var transactions: [SKPaymentTransaction] { lock.withLock { queued } }

    open var transactionObservers: [any SKPaymentTransactionObserver] {
        lock.withLock { observers.compactMap(\.value) }
    }

    /// The account's storefront: the session's, else the `.storekit` file's.
    open var storefront: SKStorefront? {
        try? StoreRuntime.shared.withStore { catalog, _ in SKStorefront(countryCode: catalog.storefront.countryCode) }
    }

    // MARK: Observers

    /// Adds an observer (held weakly). The first one hears, at once, of the transactions the
    /// app left unfinished, as at an app's launch; from then on the queue also tells of
    /// transactions made outside the app's payments (Ask to Buy approved, renewals, purchases
    /// elsewhere) and of revoked entitlements, whichever process made the change.
    open func add(_ observer: any SKPaymentTransactionObserver) {
        let first = lock.withLock {
            observers.removeAll { $0.value == nil || $0.value === observer }
            observers.append(WeakObserver(observer))
            defer { launched = true }
            return !launched
        }
        lock.withLock {
            if subscription == nil {
                subscription = TransactionWatcher.shared.subscribe { [weak self] changes in
                    guard let queue = self else { return }
                    Self.callbackQueue.async { queue.storeChanged(changes) }
                }
            }
        }
        guard first else { return }
        Self.callbackQueue.async { self.deliverUnfinished() }
    }

    open func remove(_ observer: any SKPaymentTransactionObserver) {
        let id: UUID? = lock.withLock {
            observers.removeAll { $0.value == nil || $0.value === observer }
            guard observers.isEmpty, let id = subscription else { return nil }
            subscription = nil
            return id
        }
        if let id { TransactionWatcher.shared.unsubscribe(id) }
    }

    /// Forgets the app's launch and queue (a new `SKTestSession`).
    func relaunch() {
        lock.withLock {
            queued = []
            launched = false
            delivered = []
        }
    }

    // MARK: Payments

    /// Adds a payment: the observers hear `.purchasing`, then the outcome, after this returns.
    open func add(_ payment: SKPayment) {
        let transaction = SKPaymentTransaction(payment: payment, state: .purchasing)
        lock.withLock { queued.append(transaction) }
        Self.callbackQueue.async {
            self.notify { $0.paymentQueue(self, updatedTransactions: [transaction]) }
            self.buy(transaction)
            self.notify { $0.paymentQueue(self, updatedTransactions: [transaction]) }
        }
    }

    /// `iapsim buy`'s operation for a payment.
    private func buy(_ transaction: SKPaymentTransaction) {
        let payment = transaction.payment
        do {
            var purchase = StoreKitPurchase(productID: payment.productIdentifier)
            purchase.quantity = payment.quantity
            purchase.appAccountToken = payment.applicationUsername.flatMap(UUID.init(uuidString:))
            purchase.simulatesAskToBuy = payment.simulatesAskToBuyInSandbox
            if let discount = payment.paymentDiscount {
                purchase.offer = .promotional(
                    id: discount.identifier, keyID: discount.keyIdentifier, nonce: discount.nonce,
                    timestamp: discount.timestamp.int64Value, signature: discount.signature)
            }
            let request: PurchaseRequest
            do {
                request = try PurchaseRequest(purchase)
            } catch {
                throw SKError(.paymentInvalid)
            }
            let receipt = try StoreRuntime.shared.withStore { catalog, session in
                try TransactionWatcher.shared.purchasing {
                    let quote = try session.quote(request, in: catalog)
                    let receipt = try session.purchase(quote, in: catalog)
                    return (receipt, receipt.result.transaction.map { [$0] } ?? [])
                }
            }
            switch receipt.result {
            case .purchased(let stored), .redownloaded(let stored), .alreadySubscribed(let stored),
                .downgradeScheduled(let stored, _), .offerScheduled(let stored, _):
                complete(transaction, as: .purchased, stored)
                lock.withLock { _ = delivered.insert(stored.id) }
            case .pending, .requestRepeated:
                transaction._transactionState = .deferred
            case .interrupted:
                fail(transaction, SKError(.unknown))
            case .cancelled:
                fail(transaction, SKError(.paymentCancelled))
            case .failed(let error):
                fail(transaction, Self.skError(error))
            }
        } catch {
            fail(transaction, Self.skError(error))
        }
    }

    private func complete(
        _ transaction: SKPaymentTransaction, as state: SKPaymentTransactionState, _ stored: IAPSimKit.Transaction
    ) {
        transaction._transactionState = state
        transaction._transactionIdentifier = String(stored.id)
        transaction._transactionDate = stored.purchaseDate
        transaction.storeID = stored.id
    }

    private func fail(_ transaction: SKPaymentTransaction, _ error: any Error) {
        transaction._transactionState = .failed
        transaction._error = error
    }

    /// Done with a transaction: it leaves the queue, and the store stops re-delivering it
    /// (`iapsim finish`'s operation). A transaction still purchasing cannot be finished:
    /// Apple raises an exception there ("finishTransaction(_:)": "Calling this method on a
    /// transaction in the purchasing state throws an exception"), which ends the app. Here it
    /// says so on standard error, naming the product, and the transaction stays in the queue.
    open func finishTransaction(_ transaction: SKPaymentTransaction) {
        guard transaction.transactionState != .purchasing else {
            FileHandle.standardError.write(
                Data(
                    ("StoreKit: finishTransaction(_:) called on a transaction still purchasing ("
                        + "\(transaction.payment.productIdentifier)); Apple raises an exception here and the app "
                        + "crashes: finish in paymentQueue(_:updatedTransactions:) once it is purchased, failed "
                        + "or restored\n").utf8))
            return
        }
        let removed = lock.withLock { () -> Bool in
            let before = queued.count
            queued.removeAll { $0 === transaction }
            return queued.count != before
        }
        if let id = transaction.storeID, transaction.transactionState != .failed {
            _ = try? StoreRuntime.shared.withStore { _, session in try session.finish(id) }
        }
        guard removed else { return }
        Self.callbackQueue.async {
            self.notify { $0.paymentQueue(self, removedTransactions: [transaction]) }
        }
    }

    // MARK: Restore

    open func restoreCompletedTransactions() { restoreCompletedTransactions(withApplicationUsername: nil) }

    /// `iapsim restore`'s operation, as StoreKit 1 restores: each purchase the app finished
    /// of a non-consumable or an auto-renewable subscription, not revoked, arrives as a new
    /// `.restored` transaction with its own identifier and date, its `original` the purchase
    /// (`StoreSession.restoreCompletedTransactions`); then `…Finished`.
    open func restoreCompletedTransactions(withApplicationUsername username: String?) {
        Self.callbackQueue.async {
            do {
                let (_, restoredOnes) = try StoreRuntime.shared.withStore { _, session in
                    try session.restoreCompletedTransactions()
                }
                let now = Date()
                let restored = restoredOnes.map { restoredOne -> SKPaymentTransaction in
                    let stored = restoredOne.original
                    let payment = SKPayment()
                    payment._productIdentifier = stored.productID
                    payment._quantity = stored.purchasedQuantity
                    let original = SKPaymentTransaction(payment: payment, state: .purchased)
                    original._transactionIdentifier = String(stored.id)
                    original._transactionDate = stored.purchaseDate
                    let transaction = SKPaymentTransaction(payment: payment, state: .restored)
                    transaction._transactionIdentifier = String(restoredOne.id)
                    transaction._transactionDate = now
                    transaction._original = original
                    return transaction
                }
                if !restored.isEmpty {
                    self.lock.withLock { self.queued += restored }
                    self.notify { $0.paymentQueue(self, updatedTransactions: restored) }
                }
                self.notify { $0.paymentQueueRestoreCompletedTransactionsFinished(self) }
            } catch {
                let error = Self.skError(error)
                self.notify { $0.paymentQueue(self, restoreCompletedTransactionsFailedWithError: error) }
            }
        }
    }

    // MARK: Hosted content

    /// Starts downloads: none can succeed, since the App Store no longer hosts content; each
    /// fails, and the observers hear of it in `updatedDownloads`, as a failed download is told.
    open func start(_ downloads: [SKDownload]) {
        changeDownloads(downloads) { download in
            download._state = .failed
            download._error = SKError(
                .unknown, userInfo: [NSLocalizedDescriptionKey: "Hosted content is no longer supported"])
        }
    }

    /// Pauses downloads that are active or waiting.
    open func pause(_ downloads: [SKDownload]) {
        changeDownloads(downloads.filter { $0.state == .active || $0.state == .waiting }) { $0._state = .paused }
    }

    /// Resumes paused downloads: they fail as a started one does.
    open func resume(_ downloads: [SKDownload]) { start(downloads.filter { $0.state == .paused }) }

    /// Cancels downloads that have not ended.
    open func cancel(_ downloads: [SKDownload]) {
        let open = downloads.filter { ![.finished, .failed, .cancelled].contains($0.state) }
        changeDownloads(open) { $0._state = .cancelled }
    }

    private func changeDownloads(_ downloads: [SKDownload], _ change: @escaping @Sendable (SKDownload) -> Void) {
        guard !downloads.isEmpty else { return }
        Self.callbackQueue.async {
            downloads.forEach(change)
            self.notify { $0.paymentQueue(self, updatedDownloads: downloads) }
        }
    }

    // MARK: Sheets the simulator has no screen for

    open func presentCodeRedemptionSheet() {}
    open func showPriceConsentIfNeeded() {}

    // MARK: Delivery

    private func notify(_ body: (any SKPaymentTransactionObserver) -> Void) {
        for observer in transactionObservers { body(observer) }
    }

    /// The unfinished transactions, as `.purchased`, on the callback queue.
    private func deliverUnfinished() {
        guard let unfinished = try? Transaction.unfinishedTransactions(), !unfinished.isEmpty else { return }
        let arrived = handOver(unfinished)
        guard !arrived.isEmpty else { return }
        notify { $0.paymentQueue(self, updatedTransactions: arrived) }
    }

    /// The transactions of `stored` not handed over yet, queued as `.purchased`.
    private func handOver(_ stored: [IAPSimKit.Transaction]) -> [SKPaymentTransaction] {
        let arrived = lock.withLock { () -> [SKPaymentTransaction] in
            let fresh = stored.filter { delivered.insert($0.id).inserted }
            let transactions = fresh.map(purchased)
            queued += transactions
            return transactions
        }
        return arrived
    }

    private func purchased(_ stored: IAPSimKit.Transaction) -> SKPaymentTransaction {
        let payment = SKPayment()
        payment._productIdentifier = stored.productID
        payment._quantity = stored.purchasedQuantity
        let transaction = SKPaymentTransaction(payment: payment, state: .purchased)
        complete(transaction, as: .purchased, stored)
        return transaction
    }

    /// What the watcher saw: new transactions arrive `.purchased`; revocations are told.
    private func storeChanged(_ changes: [(transaction: IAPSimKit.Transaction, isNew: Bool)]) {
        let arrived = handOver(changes.filter { $0.isNew && $0.transaction.revocationDate == nil }.map(\.transaction))
        if !arrived.isEmpty {
            notify { $0.paymentQueue(self, updatedTransactions: arrived) }
        }
        let revoked = changes.filter { $0.transaction.revocationDate != nil }.map(\.transaction.productID)
        if !revoked.isEmpty {
            notify { $0.paymentQueue(self, didRevokeEntitlementsForProductIdentifiers: revoked) }
        }
    }

    /// A library error, or a simulated one, as the `SKError` StoreKit 1 reports.
    static func skError(_ error: any Error) -> any Error {
        switch error {
        case let error as SKError: return error
        case SimulationError.simulated(_, let simulated): return skError(simulated)
        case is IAPSimKit.PurchaseError: return SKError(.storeProductNotAvailable)
        default:
            return SKError(.unknown, userInfo: [NSLocalizedDescriptionKey: error.localizedDescription])
        }
    }

    static func skError(_ simulated: SimulatedError) -> SKError {
        if simulated.domain == .skError, let code = simulated.code.flatMap(SKError.Code.init(rawValue:)) {
            return SKError(code)
        }
        switch simulated.kind {
        case .cancelled: return SKError(.paymentCancelled)
        case .notAllowed: return SKError(.paymentNotAllowed)
        case .notAvailable: return SKError(.storeProductNotAvailable)
        case .failed:
            switch simulated.purchaseErrorName {
            case .ineligibleForOffer?: return SKError(.ineligibleForOffer)
            case .invalidOfferIdentifier?: return SKError(.invalidOfferIdentifier)
            case .invalidOfferSignature?: return SKError(.invalidSignature)
            case .missingOfferParameters?: return SKError(.missingOfferParams)
            case .invalidOfferPrice?: return SKError(.invalidOfferPrice)
            case .invalidQuantity?: return SKError(.paymentInvalid)
            case .productUnavailable?: return SKError(.storeProductNotAvailable)
            case .purchaseNotAllowed?: return SKError(.paymentNotAllowed)
            case nil:
                return SKError(
                    simulated.storeKitErrorName == .networkError ? .cloudServiceNetworkConnectionFailed : .unknown)
            }
        }
    }
}

/// The app receipt file of the state folder, as `iapsim receipt` makes it:
/// `StoreKit/sandboxReceipt` (`StoreKit/receipt` when the session's environment is
/// Production). Foundation on Linux declares `Bundle.appStoreReceiptURL` itself (always nil),
/// so the receipt is reached through `SKReceiptRefreshRequest` and this path.
enum AppReceiptFile {
    @discardableResult
    static func write() throws -> URL {
        let runtime = StoreRuntime.shared
        return try runtime.withStore { _, session in
            let signer = try runtime.signer()
            let receipt = try session.appReceipt(
                StoreSession.ReceiptRequest(deviceIdentifier: StoreSession.ReceiptRequest.defaultDeviceIdentifier))
            // The set gains its RSA receipt chain on first use, as it does for `iapsim receipt`.
            let identity = try signer.identity.withReceiptChain(lockTimeout: session.store.location.lockTimeout)
            let der = try identity.signReceipt(receipt)
            let production = (try? session.settings().environment) == .production
            let folder = session.store.location.directory + "/StoreKit"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let url = URL(fileURLWithPath: folder + (production ? "/receipt" : "/sandboxReceipt"))
            try Data(der).write(to: url, options: .atomic)
            return url
        }
    }
}
