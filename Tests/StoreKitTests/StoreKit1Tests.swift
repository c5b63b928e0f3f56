import Foundation
import Testing

#if canImport(IAPSimStoreKit)
    import IAPSimStoreKit
    import IAPSimStoreKitTest
#else
    import StoreKit
    import StoreKitTest
#endif

/// An observer as the StoreKit 1 tutorials write one: it records and finishes.
final class QueueObserver: NSObject, SKPaymentTransactionObserver, SKProductsRequestDelegate, @unchecked Sendable {
    let updates = Recorder<(String, SKPaymentTransactionState, String?)>()
    let revoked = Recorder<String>()
    let restoreFinished = Recorder<Bool>()
    let removed = Recorder<String>()
    let products = Recorder<SKProductsResponse>()
    let transactions = Recorder<SKPaymentTransaction>()
    let finishes: Bool

    init(finishes: Bool = true) { self.finishes = finishes }

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        self.transactions.append(contentsOf: transactions)
        for transaction in transactions {
            updates.append(
                (transaction.payment.productIdentifier, transaction.transactionState, transaction.transactionIdentifier)
            )
            switch transaction.transactionState {
            case .purchased, .restored, .failed:
                if finishes { queue.finishTransaction(transaction) }
            case .purchasing, .deferred:
                break
            @unknown default:
                break
            }
        }
    }

    func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
        removed.append(contentsOf: transactions.map(\.payment.productIdentifier))
    }

    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        restoreFinished.append(true)
    }

    func paymentQueue(
        _ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]
    ) {
        revoked.append(contentsOf: productIdentifiers)
    }

    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        products.append(response)
    }

    func states(of productID: String) -> [SKPaymentTransactionState] {
        updates.values.filter { $0.0 == productID }.map(\.1)
    }
}

extension StoreKitAPITests {
    @Suite struct StoreKit1Tests {
        @Test func aProductsRequestAnswersItsDelegateAfterStartReturns() async throws {
            _ = try freshSession()
            let observer = QueueObserver()
            let request = SKProductsRequest(productIdentifiers: ["com.example.app.book", "nope"])
            request.delegate = observer
            // Hold the callback queue: the answer must wait for it, not come from within start().
            let gate = DispatchSemaphore(value: 0)
            SKPaymentQueue.callbackQueue.async { gate.wait() }
            request.start()
            #expect(observer.products.values.isEmpty)
            gate.signal()
            #expect(await eventually { !observer.products.values.isEmpty })
            let response = try #require(observer.products.values.first)
            #expect(response.products.map(\.productIdentifier) == ["com.example.app.book"])
            #expect(response.invalidProductIdentifiers == ["nope"])
            let book = try #require(response.products.first)
            #expect(book.price == NSDecimalNumber(string: "2.99"))
            #expect(book.priceLocale.currency?.identifier == "USD")
        }

        @Test func aProductIsPricedInTheSessionsStorefront() async throws {
            let session = try freshSession()
            session.storefront = "JPN"
            defer { session.resetToDefaultState() }
            let observer = QueueObserver()
            let request = SKProductsRequest(productIdentifiers: ["com.example.app.book"])
            request.delegate = observer
            request.start()
            #expect(await eventually { !observer.products.values.isEmpty })
            let book = try #require(observer.products.values.first?.products.first)
            #expect(book.priceLocale.currency?.identifier == "JPY")
            #expect(SKPaymentQueue.default().storefront?.countryCode == "JPN")
        }

        @Test func aReceiptRefreshWritesTheAppReceiptWithThePurchases() async throws {
            let session = try freshSession()
            try session.buyProduct(productIdentifier: "com.example.app.book")
            let observer = QueueObserver()
            let finished = Recorder<Bool>()
            final class Delegate: NSObject, SKRequestDelegate, @unchecked Sendable {
                let finished: Recorder<Bool>
                init(_ finished: Recorder<Bool>) { self.finished = finished }
                func requestDidFinish(_ request: SKRequest) { finished.append(true) }
            }
            let delegate = Delegate(finished)
            try installReceiptChainFixture(stateDirectory: session.stateDirectory.path)
            let request = SKReceiptRefreshRequest()
            request.delegate = delegate
            request.start()
            #expect(await eventually { !finished.values.isEmpty })
            _ = observer
            let receipt = try Data(
                contentsOf: session.stateDirectory.appendingPathComponent("StoreKit/sandboxReceipt"))
            #expect(receipt.range(of: Data("com.example.app.book".utf8)) != nil)
        }

        @Test func aPaymentGoesPurchasingThenPurchasedAndFinishingRemovesIt() async throws {
            _ = try freshSession()
            let observer = QueueObserver()
            let queue = SKPaymentQueue.default()
            queue.add(observer)
            defer { queue.remove(observer) }
            let payment = SKMutablePayment()
            payment.productIdentifier = "com.example.app.coins100"
            payment.quantity = 2
            queue.add(payment)
            #expect(await eventually { observer.removed.values.contains("com.example.app.coins100") })
            #expect(observer.states(of: "com.example.app.coins100") == [.purchasing, .purchased])
            #expect(queue.transactions.isEmpty)
        }

        @Test func aCancelledPaymentFailsWithPaymentCancelled() async throws {
            let session = try freshSession()
            try await session.setSimulatedError(.generic(.userCancelled), forAPI: .purchase)
            let observer = QueueObserver(finishes: false)
            let queue = SKPaymentQueue.default()
            queue.add(observer)
            defer { queue.remove(observer) }
            let payment = SKMutablePayment()
            payment.productIdentifier = "com.example.app.book"
            queue.add(payment)
            #expect(await eventually { observer.states(of: "com.example.app.book").contains(.failed) })
            let failed = try #require(queue.transactions.first { $0.transactionState == .failed })
            #expect((failed.error as? SKError)?.code == .paymentCancelled)
            #expect((failed.error as NSError?)?.domain == SKErrorDomain)
            queue.finishTransaction(failed)
            session.resetToDefaultState()
        }

        @Test func askToBuyDefersAndTheApprovalArrivesAsPurchased() async throws {
            let session = try freshSession()
            let observer = QueueObserver()
            let queue = SKPaymentQueue.default()
            queue.add(observer)
            defer { queue.remove(observer) }
            let payment = SKMutablePayment()
            payment.productIdentifier = "com.example.app.book"
            payment.simulatesAskToBuyInSandbox = true
            queue.add(payment)
            #expect(await eventually { observer.states(of: "com.example.app.book").contains(.deferred) })
            let pending = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
            try session.approveAskToBuyTransaction(identifier: pending.identifier)
            #expect(await eventually { observer.states(of: "com.example.app.book").contains(.purchased) })
        }

        @Test func restoreDeliversRestoredTransactionsThenFinished() async throws {
            let session = try freshSession()
            try session.buyProduct(productIdentifier: "com.example.app.book")
            let observer = QueueObserver()
            let queue = SKPaymentQueue.default()
            queue.add(observer)
            defer { queue.remove(observer) }
            // The purchase made outside the app arrives unfinished at the first observer.
            #expect(await eventually { observer.states(of: "com.example.app.book") == [.purchased] })
            queue.restoreCompletedTransactions()
            #expect(await eventually { !observer.restoreFinished.values.isEmpty })
            #expect(observer.states(of: "com.example.app.book") == [.purchased, .restored])
            // The restored transaction is a new one; its original is the purchase.
            let (purchasedID, restoredID) = (
                observer.updates.values.first { $0.1 == .purchased }?.2, observer.updates.values.last?.2
            )
            let restored = try #require(observer.transactions.values.first { $0.transactionState == .restored })
            #expect(restoredID != purchasedID && restoredID != nil)
            #expect(restored.original?.transactionIdentifier == purchasedID)
        }

        /// StoreKit 1 restores only what the app finished: a purchase still in the queue is
        /// delivered as it is, not restored.
        @Test func restoreLeavesOutWhatTheAppHasNotFinished() async throws {
            _ = try freshSession()
            let observer = QueueObserver(finishes: false)
            let queue = SKPaymentQueue.default()
            queue.add(observer)
            defer { queue.remove(observer) }
            let payment = SKMutablePayment()
            payment.productIdentifier = "com.example.app.book"
            queue.add(payment)
            #expect(await eventually { observer.states(of: "com.example.app.book").contains(.purchased) })
            queue.restoreCompletedTransactions()
            #expect(await eventually { !observer.restoreFinished.values.isEmpty })
            #expect(!observer.states(of: "com.example.app.book").contains(.restored))
            for transaction in queue.transactions { queue.finishTransaction(transaction) }
        }

        /// Finishing a transaction still purchasing is an error on a device (an exception):
        /// it stays in the queue.
        @Test func aPurchasingTransactionCannotBeFinished() async throws {
            _ = try freshSession()
            let queue = SKPaymentQueue.default()
            let gate = DispatchSemaphore(value: 0)
            SKPaymentQueue.callbackQueue.async { gate.wait() }
            let payment = SKMutablePayment()
            payment.productIdentifier = "com.example.app.book"
            queue.add(payment)
            let purchasing = try #require(queue.transactions.first)
            #expect(purchasing.transactionState == .purchasing)
            queue.finishTransaction(purchasing)
            #expect(queue.transactions.contains { $0 === purchasing })
            gate.signal()
            #expect(await eventually { purchasing.transactionState == .purchased })
            queue.finishTransaction(purchasing)
            #expect(!queue.transactions.contains { $0 === purchasing })
        }

        @Test func aRefundIsToldAsRevokedEntitlements() async throws {
            let session = try freshSession()
            let observer = QueueObserver()
            let queue = SKPaymentQueue.default()
            queue.add(observer)
            defer { queue.remove(observer) }
            let payment = SKMutablePayment()
            payment.productIdentifier = "com.example.app.book"
            queue.add(payment)
            #expect(await eventually { observer.states(of: "com.example.app.book").contains(.purchased) })
            let id = try #require(observer.updates.values.compactMap(\.2).first.flatMap(Int.init))
            try session.refundTransaction(identifier: id)
            #expect(
                await eventually { observer.revoked.values == ["com.example.app.book"] },
                "\(observer.revoked.values) \(observer.updates.values)")
        }
    }
}
