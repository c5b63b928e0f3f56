import Foundation
import IAPSimJSON
import IAPSimKit

/// The events the library reports while a command runs (`StoreEvent`), each once, in the
/// order first seen, and the notes they make: what happened on its own — an Ask to Buy
/// request expired, `Transaction.updates` delivered a purchase — beside the command's result.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [StoreEvent] = []
    private var inputWarnings: [String] = []

    /// Records a warning about the input (the catalog), once.
    func warn(_ warning: String) {
        lock.withLock {
            if !inputWarnings.contains(warning) { inputWarnings.append(warning) }
        }
    }

    /// The warnings, in the order recorded.
    var warnings: [String] { lock.withLock { inputWarnings } }

    /// Records `event`, unless it was recorded already (a quote sees what the purchase sees).
    func record(_ event: StoreEvent) {
        lock.withLock {
            if !events.contains(event) { events.append(event) }
        }
    }

    var notes: [String] {
        lock.withLock { events }.map { event in
            switch event {
            case .askToBuyExpired(let request):
                let when = request.expirationDate.map { " at \(ISO8601Date.string($0))" } ?? ""
                return "Note: the Ask to Buy request \(request.id) for \(request.productID) expired unanswered\(when): "
                    + "it ended declined, and nothing was charged."
            case .delivered(let transaction):
                return
                    "Note: Transaction.updates delivered transaction \(transaction.id) for \(transaction.productID), "
                    + "completed outside the app."
            case .storefrontChanged(let old, let new):
                return "Note: the storefront changed from \(old) to \(new) (Storefront.updates, "
                    + "paymentQueueDidChangeStorefront(_:)); prices and availability follow \(new), "
                    + "purchases already made keep theirs."
            }
        }
    }
}
