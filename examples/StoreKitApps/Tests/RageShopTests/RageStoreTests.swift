// An XCTest file as an app's test target writes one: XCTest, StoreKitTest (which brings
// StoreKit and Foundation, as Apple's does) and the app's module, nothing else. It builds in
// the Swift 5 language mode (RageShop's); ProShopTests' PaywallTests is the Swift 6 one.
import StoreKitTest
import XCTest

@testable import RageShop

/// RageStore under StoreKitTest, as Apple's "Setting up StoreKit Testing in Xcode" sets a
/// test up: a session from the configuration file, dialogs off, transactions cleared.
final class RageStoreTests: XCTestCase {
    private var session: SKTestSession!
    private var store: RageStore!
    private let events = EventLog()

    override func setUpWithError() throws {
        session = try SKTestSession(configurationFileNamed: "Shop")
        session.resetToDefaultState()
        session.disableDialogs = true
        session.clearTransactions()
        store = RageStore(productIdentifiers: [
            "com.example.app.book", "com.razeware.inapprage.nightlyrage", "com.example.app.pro.monthly",
        ])
        store.onEvent = { [events] in events.append($0, onMainThread: Thread.isMainThread) }
    }

    override func tearDown() {
        store = nil
        session = nil
    }

    private func product(_ id: String) throws -> SKProduct {
        let loaded = expectation(description: "products")
        var products: [SKProduct] = []
        store.requestProducts { result in
            products = (try? result.get()) ?? []
            loaded.fulfill()
        }
        wait(for: [loaded], timeout: 5)
        return try XCTUnwrap(products.first { $0.productIdentifier == id })
    }

    /// Runs the main run loop, where StoreKit calls the observer, until `event` was told.
    private func waitFor(_ event: RageStore.Event, timeout: TimeInterval = 5) {
        let deadline = Date().addingTimeInterval(timeout)
        while !events.contains(event), Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.02)) }
        XCTAssertTrue(events.contains(event), "never saw \(event); saw \(events.all)")
    }

    func testProductsArePricedInTheStorefrontCurrency() throws {
        let book = try product("com.example.app.book")
        XCTAssertEqual(book.localizedTitle.isEmpty, false)
        XCTAssertEqual(RageStore.formattedPrice(of: book), "$2.99")
    }

    func testPurchaseUnlocksTheProduct() throws {
        try store.buy(product("com.example.app.book"))
        waitFor(.purchased("com.example.app.book"))
        XCTAssertTrue(store.isPurchased("com.example.app.book"))
    }

    func testAskToBuyIsDeferredUntilTheParentApproves() throws {
        session.askToBuyEnabled = true
        try store.buy(product("com.razeware.inapprage.nightlyrage"))
        waitFor(.deferred("com.razeware.inapprage.nightlyrage"))
        XCTAssertFalse(store.isPurchased("com.razeware.inapprage.nightlyrage"))
        let request = try XCTUnwrap(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
        try session.approveAskToBuyTransaction(identifier: request.identifier)
        waitFor(.purchased("com.razeware.inapprage.nightlyrage"))
    }

    func testAFailedPurchaseUnlocksNothing() throws {
        session.failTransactionsEnabled = true
        session.failureError = .unknown
        try store.buy(product("com.example.app.book"))
        waitFor(.failed("com.example.app.book", cancelled: false))
        XCTAssertFalse(store.isPurchased("com.example.app.book"))
    }

    func testRestoreBringsBackAPurchaseMadeElsewhere() throws {
        try session.buyProduct(productIdentifier: "com.razeware.inapprage.nightlyrage")
        // The purchase made on another device reaches the queue as purchased; restore again.
        waitFor(.purchased("com.razeware.inapprage.nightlyrage"))
        store.restorePurchases()
        waitFor(.restoreFinished(count: 1))
        XCTAssertTrue(store.isPurchased("com.razeware.inapprage.nightlyrage"))
    }

    func testASubscriptionRenewsAsTheClockRuns() throws {
        session.timeRate = .oneRenewalEveryTwoSeconds
        try store.buy(product("com.example.app.pro.monthly"))
        waitFor(.purchased("com.example.app.pro.monthly"))
        // The renewal is a new transaction that arrives in the queue by itself.
        let deadline = Date().addingTimeInterval(8)
        while events.count(of: .purchased("com.example.app.pro.monthly")) < 2, Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.05))
        }
        XCTAssertGreaterThanOrEqual(events.count(of: .purchased("com.example.app.pro.monthly")), 2)
        try session.expireSubscription(productIdentifier: "com.example.app.pro.monthly")
        session.timeRate = .realTime
    }

    /// StoreKit calls the observer and the request's delegate on the main thread, and the
    /// purchase is finished by the time `wait(for:)` returns.
    func testCallbacksArriveOnTheMainThread() throws {
        let purchased = expectation(description: "purchased")
        store.onEvent = { [events] event in
            events.append(event, onMainThread: Thread.isMainThread)
            if event == .purchased("com.example.app.book") { purchased.fulfill() }
        }
        try store.buy(product("com.example.app.book"))
        wait(for: [purchased], timeout: 5)
        XCTAssertTrue(events.allOnMainThread, "every event on the main thread")
        XCTAssertTrue(SKPaymentQueue.default().transactions.isEmpty, "finished by the time wait(for:) returned")
    }

    /// A spy stands in for the products request, as app tests subclass it.
    func testARequestSpyAnswersInsteadOfTheStore() throws {
        final class EmptyResponse: SKProductsResponse {
            override var products: [SKProduct] { [] }
        }
        final class RequestSpy: SKProductsRequest {
            var started = 0
            override func start() {
                started += 1
                (delegate as? SKProductsRequestDelegate)?.productsRequest(self, didReceive: EmptyResponse())
            }
        }
        let spy = RequestSpy()
        store.makeRequest = { _ in spy }
        var outcome: Result<[SKProduct], Error>?
        store.requestProducts { outcome = $0 }
        XCTAssertEqual(spy.started, 1)
        guard case .failure(RageStore.StoreError.noProducts)? = outcome else {
            return XCTFail("expected no products, got \(String(describing: outcome))")
        }
    }

    /// An error bridged from NSError, as an app's logging code rebuilds one.
    func testAnSKErrorBridgesFromNSError() {
        let error = SKError(.paymentCancelled) as NSError
        XCTAssertEqual(error.domain, SKErrorDomain)
        XCTAssertEqual(SKError(_nsError: error).code, .paymentCancelled)
    }

    func testARefundRevokesTheProduct() throws {
        try store.buy(product("com.example.app.book"))
        waitFor(.purchased("com.example.app.book"))
        let transaction = try XCTUnwrap(session.allTransactions().first { $0.productIdentifier == "com.example.app.book" })
        try session.refundTransaction(identifier: transaction.identifier)
        waitFor(.revoked(["com.example.app.book"]))
        XCTAssertFalse(store.isPurchased("com.example.app.book"))
    }
}

/// What the store told, in order, from any thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [RageStore.Event] = []
    private var threads: [Bool] = []

    func append(_ event: RageStore.Event, onMainThread: Bool) {
        lock.lock()
        events.append(event)
        threads.append(onMainThread)
        lock.unlock()
    }

    var allOnMainThread: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !threads.isEmpty && !threads.contains(false)
    }

    var all: [RageStore.Event] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    func contains(_ event: RageStore.Event) -> Bool { all.contains(event) }
    func count(of event: RageStore.Event) -> Int { all.filter { $0 == event }.count }
}
