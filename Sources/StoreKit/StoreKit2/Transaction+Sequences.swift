import Foundation
import IAPSimKit

extension Transaction {
    /// The asynchronous sequences of transactions StoreKit 2 offers: `updates` never ends;
    /// `all`, `currentEntitlements` and `unfinished` end after what the account has now.
    public struct Transactions: AsyncSequence, Sendable {
        public typealias Element = VerificationResult<Transaction>
        public typealias Failure = Never

        enum Source: Sendable {
            case live(Subscription)
            case snapshot(@Sendable () -> [VerificationResult<Transaction>])
        }

        let source: Source

        public struct AsyncIterator: AsyncIteratorProtocol {
            public typealias Element = VerificationResult<Transaction>
            public typealias Failure = Never
            let source: Source
            var stream: AsyncStream<VerificationResult<Transaction>>.Iterator?
            var items: IndexingIterator<[VerificationResult<Transaction>]>?

            public mutating func next() async -> VerificationResult<Transaction>? {
                switch source {
                case .live(let subscription):
                    if stream == nil { stream = subscription.stream.makeAsyncIterator() }
                    return await stream?.next()
                case .snapshot(let make):
                    if items == nil { items = make().makeIterator() }
                    return items?.next()
                }
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source) }
    }

    /// One listener of `Transaction.updates`, subscribed as soon as the sequence is made, so
    /// nothing that happens between `Transaction.updates` and the first `next()` is missed.
    final class Subscription: Sendable {
        let stream: AsyncStream<VerificationResult<Transaction>>
        let id: UUID

        init(replaying initial: [IAPSimKit.Transaction]) {
            let (stream, continuation) = AsyncStream<VerificationResult<Transaction>>.makeStream()
            self.stream = stream
            for result in (try? Verifier.results(initial)) ?? [] { continuation.yield(result) }
            id = TransactionWatcher.shared.subscribe { transactions in
                for result in (try? Verifier.results(transactions.map(\.transaction))) ?? [] {
                    continuation.yield(result)
                }
            }
        }

        deinit { TransactionWatcher.shared.unsubscribe(id) }
    }

    /// Whether this process has listened to `updates` yet: the first listener gets the
    /// transactions left unfinished, once, as at an app's launch.
    private static let launch = LaunchFlag()

    final class LaunchFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        func first() -> Bool {
            lock.withLock {
                defer { done = true }
                return !done
            }
        }
        func reset() { lock.withLock { done = false } }
    }

    /// Resets what the process remembers of its launch (a new `SKTestSession`).
    static func relaunch() { launch.reset() }

    /// Transactions made or changed outside the app's own `purchase()` calls: Ask to Buy
    /// approved, renewals, refunds and revocations, purchases on another device; at the first
    /// listen, the transactions still unfinished.
    public static var updates: Transaction.Transactions {
        var unfinished: [IAPSimKit.Transaction] = []
        if launch.first() { unfinished = (try? Self.unfinishedTransactions()) ?? [] }
        return Transactions(source: .live(Subscription(replaying: unfinished)))
    }

    /// Every transaction of the account StoreKit lists, in purchase order: consumables while
    /// unfinished or once refunded (`TransactionHistory.Entry.isInStoreKitHistory`).
    public static var all: Transaction.Transactions {
        snapshot { session in try session.history().entries().filter(\.isInStoreKitHistory).map(\.transaction) }
    }

    /// The latest transaction of each product the account is entitled to now.
    public static var currentEntitlements: Transaction.Transactions {
        snapshot { session in try session.status().entitlements.sorted { $0.id < $1.id } }
    }

    /// The transactions the app has not finished.
    public static var unfinished: Transaction.Transactions {
        snapshot { _ in try unfinishedTransactions() }
    }

    /// The current entitlements for one product (Apple, iOS 18).
    public static func currentEntitlements(for productID: String) -> Transaction.Transactions {
        snapshot { session in try session.status().entitlements.filter { $0.productID == productID } }
    }

    /// The entitlement for a product, if the account has one.
    public static func currentEntitlement(for productID: String) async -> VerificationResult<Transaction>? {
        let transactions = (try? current { session in try session.status().entitlements }) ?? []
        return transactions.last { $0.productID == productID }.flatMap { try? Verifier.result($0) }
    }

    /// The newest transaction for a product.
    public static func latest(for productID: String) async -> VerificationResult<Transaction>? {
        let transactions =
            (try? current { session in
                try session.history(productID: productID).entries().filter(\.isInStoreKitHistory).map(\.transaction)
            }) ?? []
        return transactions.max {
            $0.purchaseDate < $1.purchaseDate || ($0.purchaseDate == $1.purchaseDate && $0.id < $1.id)
        }
        .flatMap { try? Verifier.result($0) }
    }

    static func unfinishedTransactions() throws -> [IAPSimKit.Transaction] {
        try current { session in try session.history(filter: .unfinished).entries().map(\.transaction) }
    }

    private static func current<T>(_ body: (StoreSession) throws -> T) throws -> T {
        try StoreRuntime.shared.withStore { _, session in try body(session) }
    }

    private static func snapshot(_ read: @escaping @Sendable (StoreSession) throws -> [IAPSimKit.Transaction])
        -> Transactions
    {
        Transactions(
            source: .snapshot {
                guard let transactions = try? current(read) else { return [] }
                return (try? Verifier.results(transactions)) ?? []
            })
    }
}
