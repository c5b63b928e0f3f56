import Foundation
import Testing

@testable import IAPSimKit

/// The pages the HTTP front end serves for Get Transaction History, Get Refund History and
/// Look Up Order ID.
@Suite struct HistoryPageTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession

    init() throws {
        catalog = try Support.validCatalog()
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    @discardableResult
    private func buy(_ id: String) throws -> Transaction {
        let product = try #require(catalog.store.products.first { $0.id == id })
        return try #require(try session.buy(product, in: catalog).transaction)
    }

    /// 45 consumables an hour apart, a level in the middle.
    private func makeHistory() throws {
        for index in 0..<45 {
            try buy(index == 20 ? "fx.levels" : "fx.coins")
            clock.advance(days: 1.0 / 24)
        }
    }

    /// Every page of `query`, from the first.
    private func allPages(_ query: HistoryQuery) throws -> [HistoryPage] {
        var pages = [try session.historyPage(transactionID: 1, query: query)]
        while pages.last!.hasMore {
            var next = query
            next.revision = pages.last!.revision
            pages.append(try session.historyPage(transactionID: 1, query: next))
        }
        return pages
    }

    @Test func pagesOfTwentyCoverTheHistoryInOrder() throws {
        try makeHistory()
        let pages = try allPages(HistoryQuery())
        #expect(pages.map(\.transactions.count) == [20, 20, 5])
        #expect(pages.flatMap(\.transactions).map(\.id) == Array(1...45))
        let descending = try allPages(HistoryQuery(sort: .descending))
        #expect(descending.flatMap(\.transactions).map(\.id) == Array((1...45).reversed()))
    }

    @Test func aRevisionStaysValidWhileTransactionsAreAdded() throws {
        try makeHistory()
        let first = try session.historyPage(transactionID: 1)
        for _ in 0..<3 { try buy("fx.coins") }
        var rest: [UInt64] = []
        var query = HistoryQuery(revision: first.revision)
        while true {
            let page = try session.historyPage(transactionID: 1, query: query)
            rest += page.transactions.map(\.id)
            guard page.hasMore else { break }
            query.revision = page.revision
        }
        #expect(first.transactions.map(\.id) + rest == Array(1...48))
    }

    @Test func filtersNarrowThePages() throws {
        try makeHistory()
        let start = Support.fixedDate.addingTimeInterval(10 * 3600)
        let window = try allPages(HistoryQuery(startDate: start, endDate: start.addingTimeInterval(5 * 3600)))
        #expect(window.flatMap(\.transactions).map(\.id) == Array(11...15))
        let levels = try allPages(HistoryQuery(productIDs: ["fx.levels"]))
        #expect(levels.flatMap(\.transactions).map(\.id) == [21])
        let types = try allPages(HistoryQuery(productTypes: [.nonConsumable, .autoRenewable]))
        #expect(types.flatMap(\.transactions).map(\.id) == [21])
        _ = try session.refund(7, reason: .other)
        let revoked = try allPages(HistoryQuery(revoked: true))
        #expect(revoked.flatMap(\.transactions).map(\.id) == [7])
        #expect(revoked.first?.transactions.first?.revocationReason == .other)
        #expect(try allPages(HistoryQuery(revoked: false)).flatMap(\.transactions).count == 44)
        #expect(try allPages(HistoryQuery(subscriptionGroupIDs: ["G1"])).flatMap(\.transactions).isEmpty)
        #expect(try allPages(HistoryQuery(ownership: .familyShared)).flatMap(\.transactions).isEmpty)
        #expect(try allPages(HistoryQuery(ownership: .purchased)).flatMap(\.transactions).count == 45)
    }

    @Test func aSubscriptionGroupFilterFindsItsChain() throws {
        try buy("fx.levels")
        let monthly = try buy("fx.plus.monthly")
        clock.advance(days: 70)
        let pages = try allPages(HistoryQuery(subscriptionGroupIDs: ["G1"], sort: .descending))
        let chain = pages.flatMap(\.transactions)
        #expect(chain.count >= 3)
        #expect(chain.allSatisfy { $0.originalID == monthly.id })
        #expect(chain.map(\.id) == chain.map(\.id).sorted(by: >))
    }

    @Test func wrongQueriesAreRefused() throws {
        try makeHistory()
        #expect(throws: SimulationError.unknownTransaction(id: 99)) { try session.historyPage(transactionID: 99) }
        #expect(throws: HistoryQueryError.invalidRevision("nonsense")) {
            try session.historyPage(transactionID: 1, query: HistoryQuery(revision: "nonsense"))
        }
        let ascending = try session.historyPage(transactionID: 1)
        #expect(throws: HistoryQueryError.invalidRevision(ascending.revision)) {
            try session.historyPage(
                transactionID: 1, query: HistoryQuery(sort: .descending, revision: ascending.revision))
        }
        #expect(throws: HistoryQueryError.invalidDateRange) {
            try session.historyPage(
                transactionID: 1, query: HistoryQuery(startDate: Support.fixedDate, endDate: Support.fixedDate))
        }
    }

    /// Apple, "Get Transaction History": sorted "by their recently modified date", not by
    /// purchase date: a transaction bought later with an earlier date (the clock set back)
    /// still comes after, and one changed later (refunded) moves to the end.
    @Test func pagesFollowTheLastChangeNotThePurchaseDate() throws {
        for _ in 0..<25 {
            try buy("fx.coins")
            clock.advance(days: -1)
        }
        _ = try allPages(HistoryQuery())  // the order is kept from here
        clock.advance(days: -10)
        try buy("fx.coins")  // 26: the earliest purchase date, the latest change but one
        _ = try session.refund(3, reason: .other)
        let expected = Array(1...2) + Array(4...26) + [3]
        #expect(try allPages(HistoryQuery()).flatMap(\.transactions).map(\.id) == expected.map(UInt64.init))
        #expect(
            try allPages(HistoryQuery(sort: .descending)).flatMap(\.transactions).map(\.id)
                == expected.reversed().map(UInt64.init))
    }

    /// Apple, "revision": stored from the last page of a sync, it asks for what changed since.
    /// After a full sync, a refund of an old transaction is on the next incremental call, with
    /// a purchase made after it; nothing else is.
    @Test func aRefundOfAnOldTransactionComesBackOnTheNextIncrementalCall() throws {
        try makeHistory()
        let synced = try allPages(HistoryQuery())
        #expect(synced.flatMap(\.transactions).count == 45)
        let revision = try #require(synced.last?.revision)
        #expect(try session.historyPage(transactionID: 1, query: HistoryQuery(revision: revision)).transactions.isEmpty)
        _ = try session.refund(2, reason: .developerIssue)
        try buy("fx.coins")
        let next = try session.historyPage(transactionID: 1, query: HistoryQuery(revision: revision))
        #expect(next.transactions.map(\.id) == [2, 46] && !next.hasMore)
        #expect(next.transactions.first?.revocationDate != nil)
        let after = try session.historyPage(transactionID: 1, query: HistoryQuery(revision: next.revision))
        #expect(after.transactions.isEmpty)
    }

    /// Changes between pages of one kept order: every refund moves its transaction to the end,
    /// once, however many there are (the order drops what went stale and is built again).
    @Test func manyChangesBetweenPagesKeepEachTransactionOnce() throws {
        try makeHistory()
        let first = try session.historyPage(transactionID: 1)
        for id in UInt64(10)...40 { _ = try session.refund(id, reason: .other) }
        var ids = first.transactions.map(\.id)
        var query = HistoryQuery(revision: first.revision)
        while true {
            let page = try session.historyPage(transactionID: 1, query: query)
            ids += page.transactions.map(\.id)
            guard page.hasMore else { break }
            query.revision = page.revision
        }
        // 1...20 on the first page; then those not refunded, then the refunds in their order.
        #expect(ids == Array(1...20) + Array(41...45) + Array(10...40))
    }

    /// A transaction deleted in the Transaction Manager ("SKTestSession.deleteTransaction")
    /// is gone from the history the server gives, also after the order was kept.
    @Test func aDeletedTransactionLeavesTheHistory() throws {
        for _ in 0..<3 { try buy("fx.coins") }
        #expect(try allPages(HistoryQuery()).flatMap(\.transactions).map(\.id) == [1, 2, 3])
        _ = try session.deleteTransaction(2)
        #expect(try allPages(HistoryQuery()).flatMap(\.transactions).map(\.id) == [1, 3])
        #expect(try allPages(HistoryQuery(sort: .descending)).flatMap(\.transactions).map(\.id) == [3, 1])
    }

    @Test func anEmptyPageKeepsItsPlace() throws {
        try buy("fx.coins")
        let empty = try session.historyPage(transactionID: 1, query: HistoryQuery(productIDs: ["fx.levels"]))
        #expect(empty.transactions.isEmpty && !empty.hasMore)
        try buy("fx.levels")
        let later = try session.historyPage(
            transactionID: 1, query: HistoryQuery(productIDs: ["fx.levels"], revision: empty.revision))
        #expect(later.transactions.map(\.id) == [2])
    }

    @Test func refundHistoryIsNewestFirst() throws {
        try makeHistory()
        for id: UInt64 in [5, 30, 2] {
            _ = try session.refund(id, reason: .developerIssue)
            clock.advance(days: 1)
        }
        for id in UInt64(6)...29 {
            _ = try session.refund(id, reason: .other)
        }
        var pages = [try session.refundHistoryPage(transactionID: 1)]
        while pages.last!.hasMore {
            pages.append(try session.refundHistoryPage(transactionID: 1, revision: pages.last!.revision))
        }
        let ids = pages.flatMap(\.transactions).map(\.id)
        #expect(pages.map(\.transactions.count) == [20, 7])
        #expect(ids == Array((6...29).reversed()) + [2, 30, 5])
        #expect(pages.flatMap(\.transactions).allSatisfy { $0.revocationDate != nil })
    }

    /// Apple, "Look Up Order ID": a receipt, with its order ID, for each purchase — and for
    /// each renewal, which bills a period of its own. A renewal is its own order, and a
    /// resubscription is a new order although it keeps the chain's original identifier.
    @Test func eachPurchaseAndEachRenewalIsAnOrderOfItsOwn() throws {
        let coins = try buy("fx.coins")
        let monthly = try buy("fx.plus.monthly")
        clock.advance(days: 70)
        _ = try session.status()  // renews up to now
        let chain = try session.store.chain(monthly.originalID)
        #expect(chain.count >= 3)
        #expect(Set(chain.map(\.orderID)).count == chain.count)
        for transaction in chain {
            #expect(try session.transactions(orderID: transaction.orderID).map(\.id) == [transaction.id])
        }
        #expect(try session.transactions(orderID: coins.orderID).map(\.id) == [coins.id])
        #expect(try session.transactions(orderID: "MNOTANORDER").isEmpty)
        #expect(try session.transactions(orderID: OrderID.string(transactionID: 999)).isEmpty)
        // A purchase keeps the order earlier iapsim gave it: its own identifier's.
        #expect(coins.orderID == "MSQ5ZMMZ0N")
    }

    @Test func aResubscriptionIsANewOrder() throws {
        let first = try buy("fx.plus.yearly")
        _ = try session.expireSubscription("fx.plus.yearly")
        let again = try buy("fx.plus.yearly")
        #expect(again.originalID == first.originalID && again.orderID != first.orderID)
        #expect(try session.transactions(orderID: again.orderID).map(\.id) == [again.id])
        #expect(try session.transactions(orderID: first.orderID).map(\.id) == [first.id])
    }
}
