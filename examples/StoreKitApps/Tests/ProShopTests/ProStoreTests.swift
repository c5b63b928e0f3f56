import Foundation
import ProShop
import StoreKit
import StoreKitTest
import Testing

/// ProStore under StoreKitTest. The session is the process's store, so the tests run one at
/// a time.
@MainActor
@Suite(.serialized) struct ProStoreTests {
    let session: SKTestSession
    let store: ProStore

    init() async throws {
        session = try SKTestSession(configurationFileNamed: "Shop")
        session.resetToDefaultState()
        session.disableDialogs = true
        session.clearTransactions()
        store = ProStore(productIDs: [
            "com.example.app.book", "com.example.app.coins100", "com.example.app.pro.monthly",
        ])
        try await store.loadProducts()
    }

    /// Waits, letting the store's listener run, until `condition` holds or 8 s pass.
    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<400 {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }

    @Test func productsLoadWithDisplayPrices() throws {
        let book = try #require(store.product("com.example.app.book"))
        #expect(book.displayPrice == "$2.99")
        #expect(store.product("com.example.app.pro.monthly")?.subscription?.subscriptionPeriod.unit == .month)
    }

    @Test func aPurchaseIsVerifiedAndEntitles() async throws {
        let book = try #require(store.product("com.example.app.book"))
        let transaction = try await store.purchase(book)
        #expect(transaction?.productID == "com.example.app.book")
        #expect(store.purchasedProductIDs.contains("com.example.app.book"))
    }

    @Test func askToBuyIsPendingThenTheApprovalArrivesThroughUpdates() async throws {
        let book = try #require(store.product("com.example.app.book"))
        #expect(try await store.purchase(book, askParent: true) == nil)
        #expect(!store.purchasedProductIDs.contains("com.example.app.book"))
        let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
        try session.approveAskToBuyTransaction(identifier: request.identifier)
        #expect(await eventually { store.purchasedProductIDs.contains("com.example.app.book") })
    }

    @Test func aFailedPurchaseThrowsAndGrantsNothing() async throws {
        try await session.setSimulatedError(.purchase(.productUnavailable), forAPI: .purchase)
        let coins = try #require(store.product("com.example.app.coins100"))
        await #expect(throws: Product.PurchaseError.productUnavailable) { try await store.purchase(coins) }
        #expect(store.coins == 0)
        try await session.setSimulatedError(nil, forAPI: .purchase)
    }

    @Test func restoreBringsBackAPurchaseMadeOnAnotherDevice() async throws {
        try await session.buyProduct(identifier: "com.example.app.book")
        try await store.restore()
        #expect(store.purchasedProductIDs.contains("com.example.app.book"))
    }

    @Test func aSubscriptionRenewsWithTheClockAndExpires() async throws {
        session.timeRate = .oneRenewalEveryTwoSeconds
        defer { session.timeRate = .realTime }
        let monthly = try #require(store.product("com.example.app.pro.monthly"))
        let first = try #require(try await store.purchase(monthly))
        #expect(try await store.isSubscribed(groupID: first.subscriptionGroupID ?? ""))
        // The renewal arrives through Transaction.updates as a new transaction of the chain.
        #expect(await eventually { store.handledUpdates.contains { $0 != first.id } })
        try session.expireSubscription(productIdentifier: "com.example.app.pro.monthly")
        #expect(try await store.isSubscribed(groupID: first.subscriptionGroupID ?? "") == false)
    }

    @Test func aRefundArrivesThroughUpdatesAndRemovesTheEntitlement() async throws {
        let book = try #require(store.product("com.example.app.book"))
        let transaction = try #require(try await store.purchase(book))
        try session.refundTransaction(identifier: Int(transaction.id))
        #expect(await eventually { !store.purchasedProductIDs.contains("com.example.app.book") })
        #expect(store.handledUpdates.last == transaction.id)
    }

    /// One store, two hands: `iapsim` in another process approves, refunds and moves the
    /// clock, and the app sees each change arrive. Needs the built `iapsim` (`IAPSIM`); where
    /// `CI` is set its absence fails the test.
    @Test func theCommandLineChangesTheStoreFromOutside() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let iapsim = environment["IAPSIM"], FileManager.default.isExecutableFile(atPath: iapsim) else {
            if environment["CI"] != nil { Issue.record("IAPSIM does not name the built iapsim binary") }
            return
        }
        func run(_ arguments: String...) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: iapsim)
            process.arguments = arguments
            var variables = environment
            variables["IAPSIM_STATE_DIR"] = session.stateDirectory.path
            variables["IAPSIM_CATALOG"] = nil
            process.environment = variables
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        let book = try #require(store.product("com.example.app.book"))
        #expect(try await store.purchase(book, askParent: true) == nil)
        let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
        #expect(try run("--storekit", session.configurationURL.path, "approve", String(request.identifier)) == 0)
        #expect(await eventually { store.purchasedProductIDs.contains("com.example.app.book") })
        let bought = try #require(store.handledUpdates.last)
        #expect(try run("--storekit", session.configurationURL.path, "refund", String(bought)) == 0)
        #expect(await eventually { !store.purchasedProductIDs.contains("com.example.app.book") })

        let monthly = try #require(store.product("com.example.app.pro.monthly"))
        let first = try #require(try await store.purchase(monthly))
        #expect(try run("--storekit", session.configurationURL.path, "clock", "advance", "P1M") == 0)
        #expect(await eventually { store.handledUpdates.last.map { $0 > first.id } ?? false })
    }
}
