// A command-line program driven by the main run loop, as a macOS helper or a Linux daemon
// written for StoreKit 1 is: it buys one product (the first argument) and waits, servicing
// the main run loop, for the observer to hear the outcome. StoreKit calls the observer on the
// main thread; the program says whether it did, and exits 0 only if the purchase went through
// there. It imports StoreKit alone.
import StoreKit

final class Watcher: NSObject, SKPaymentTransactionObserver {
    var outcome: String?
    var onMainThread = true

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        onMainThread = onMainThread && Thread.isMainThread
        for transaction in transactions {
            switch transaction.transactionState {
            case .purchased, .restored:
                queue.finishTransaction(transaction)
                outcome = "purchased"
            case .failed:
                queue.finishTransaction(transaction)
                outcome = "failed: \(transaction.error?.localizedDescription ?? "unknown")"
            case .deferred:
                outcome = "deferred"
            default:
                break
            }
        }
    }
}

let productIdentifier = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "com.example.app.book"
let watcher = Watcher()
SKPaymentQueue.default().add(watcher)
let payment = SKMutablePayment()
payment.productIdentifier = productIdentifier
SKPaymentQueue.default().add(payment)
let deadline = Date().addingTimeInterval(15)
while watcher.outcome == nil, Date() < deadline {
    RunLoop.main.run(until: Date().addingTimeInterval(0.05))
}
print("\(productIdentifier): \(watcher.outcome ?? "no answer in 15 s"); observer on the main thread: \(watcher.onMainThread)")
exit(watcher.outcome == "purchased" && watcher.onMainThread ? 0 : 1)
