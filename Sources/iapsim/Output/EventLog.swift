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

    /// The warnings, in the order recorded: about the input, then about what was produced.
    var warnings: [String] {
        lock.withLock {
            inputWarnings + (events.contains(.productionWithoutAppAppleID) ? [Self.productionWithoutAppAppleID] : [])
        }
    }

    /// Said once a command has signed Production data with no app Apple ID set.
    static let productionWithoutAppAppleID =
        "Warning: Production data without an app Apple ID: Apple's Production verifier needs the app's Apple ID "
        + "and rejects notifications and app transactions without it; set one with "
        + "'iapsim settings set app-apple-id NUMBER'."

    /// Records `event`, unless it was recorded already (a quote sees what the purchase sees).
    func record(_ event: StoreEvent) {
        lock.withLock {
            if !events.contains(event) { events.append(event) }
        }
    }

    var notes: [String] {
        lock.withLock { events }.compactMap { event -> String? in
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
            case .productionWithoutAppAppleID:
                return nil  // a warning, before the output
            }
        }
    }
}
