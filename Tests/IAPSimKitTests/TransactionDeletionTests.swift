import Foundation
import Testing

@testable import IAPSimKit

/// `SKTestSession.deleteTransaction(identifier:)` and `clearTransactions()`. Apple's
/// "deleteTransaction(identifier:)": the transaction leaves the test environment, and deleting
/// a transaction deletes its children — deleting a subscription's original transaction deletes
/// its renewals. "clearTransactions()" removes every transaction and keeps the session's
/// configuration; "resetToDefaultState()" is the one that resets the settings.
@Suite struct TransactionDeletionTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession
    var store: StateStore { session.store }

    init() throws {
        catalog = try Support.validCatalog()
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func buy(_ id: String) throws -> Transaction {
        try #require(try session.buy(try catalog.purchasableProduct(id), in: catalog).transaction)
    }

    @Test func aDeletedTransactionLeavesTheHistoryTheEntitlementsAndTheAppsRecord() throws {
        let levels = try buy("fx.levels")
        let coins = try buy("fx.coins")
        #expect(try session.status().isEntitled(to: "fx.levels"))
        let deletion = try session.deleteTransaction(levels.id)
        #expect(deletion.transactions.map(\.id) == [levels.id])
        #expect(try store.transactions().map(\.id) == [coins.id])
        #expect(try store.transaction(levels.id) == nil)
        let status = try session.status()
        #expect(!status.isEntitled(to: "fx.levels"))
        #expect(status.purchasedProductIdentifiers.isEmpty)
        #expect(status.transactionCount == 1)
        // It is gone, not refunded: buying again is a new purchase, not a re-download.
        let quote = try session.quote(PurchaseRequest(productID: "fx.levels"), in: catalog)
        #expect(quote.kind == .purchase)
        #expect(throws: SimulationError.unknownTransaction(id: levels.id)) { try session.deleteTransaction(levels.id) }
        #expect(throws: SimulationError.unknownTransaction(id: levels.id)) {
            try session.refund(levels.id, reason: .other)
        }
    }

    @Test func aDeletedConsumableComesOffTheBalance() throws {
        _ = try buy("fx.coins")
        let second = try buy("fx.coins")
        _ = try session.deleteTransaction(second.id)
        #expect(try store.read().app.consumables["fx.coins"] == 1)
        #expect(try store.transactions().count == 1)
    }

    @Test func deletingASubscriptionsOriginalTransactionDeletesItsRenewals() throws {
        let original = try buy("fx.plus.monthly")
        clock.advance(days: 70)
        _ = try session.status()
        let chain = try store.chain(original.id)
        #expect(chain.count >= 3)
        let coins = try buy("fx.coins")
        let deletion = try session.deleteTransaction(original.id)
        #expect(deletion.transactions.map(\.id) == chain.map(\.id))
        #expect(try store.transactions().map(\.id) == [coins.id])
        let status = try session.status()
        #expect(status.subscriptions.isEmpty)
        #expect(!status.isEntitled(to: "fx.plus.monthly"))
        // The group has no history left: its introductory offer is offered again.
        #expect(status.isEligibleForIntroOffer(group: try #require(original.subscriptionGroupID)))
        clock.advance(days: 60)
        #expect(try store.transactions().map(\.id) == [coins.id])  // nothing renews
    }

    @Test func deletingARenewalDeletesItAlone() throws {
        let original = try buy("fx.plus.monthly")
        clock.advance(days: 70)
        _ = try session.status()
        let chain = try session.store.chain(original.id)
        let renewal = try #require(chain.dropFirst().first)
        _ = try session.deleteTransaction(renewal.id)
        #expect(try store.chain(original.id).map(\.id) == chain.map(\.id).filter { $0 != renewal.id })
        #expect(try session.status().isEntitled(to: "fx.plus.monthly"))
    }

    /// With auto-renew on, the period of a deleted newest renewal has no transaction, and the
    /// App Store bills it again; with auto-renew off, the subscription ends with the period
    /// before.
    @Test func deletingTheNewestRenewalRenewsAgainOnlyWhileAutoRenewIsOn() throws {
        let original = try buy("fx.plus.monthly")
        clock.advance(days: 70)
        _ = try session.status()
        let last = try #require(try store.chain(original.id).last)
        let deletion = try session.deleteTransaction(last.id)
        let again = try #require(deletion.renewedAgain.first)
        #expect(again.id > last.id)
        #expect(again.purchaseDate == last.purchaseDate)
        #expect(try session.status().isEntitled(to: "fx.plus.monthly"))
        #expect(try store.read().app.purchasedProductIdentifiers == ["fx.plus.monthly"])

        _ = try session.cancelSubscription("fx.plus.monthly")
        #expect(try session.deleteTransaction(again.id).renewedAgain.isEmpty)
        #expect(!(try session.status().isEntitled(to: "fx.plus.monthly")))
        #expect(try store.read().app.purchasedProductIdentifiers.isEmpty)
    }

    /// The journal keeps the lines of a deleted transaction; what it appends says so, and an
    /// index rebuilt from it, or a snapshot caught up by replaying it after a crash, agrees.
    @Test func deletedTransactionsStayDeletedAfterARebuildAndAReplay() throws {
        let levels = try buy("fx.levels")
        let coins = try buy("fx.coins")
        let before = try Data(contentsOf: URL(fileURLWithPath: store.location.statePath))
        _ = try session.deleteTransaction(levels.id)
        // A crash after the journal append, before the snapshot: the old snapshot, no index.
        try before.write(to: URL(fileURLWithPath: store.location.statePath))
        try FileManager().removeItem(atPath: store.location.indexPath)
        let state = try store.read()
        #expect(state.account.latest(for: "fx.levels") == nil)
        #expect(state.account.transactionCount == 1)
        #expect(state.app.purchasedProductIdentifiers.isEmpty)
        #expect(try store.transactions().map(\.id) == [coins.id])
        #expect(try store.transaction(levels.id) == nil)
        try store.update { _ in }  // the next change writes the index again
        #expect(FileManager().fileExists(atPath: store.location.indexPath))
        #expect(try store.transactions().map(\.id) == [coins.id])
        #expect(!(try session.status().isEntitled(to: "fx.levels")))
    }

    /// A product bought twice (a non-renewing subscription) falls back on its earlier
    /// transaction when the later one is deleted, after a replay too.
    @Test func aProductFallsBackOnItsEarlierTransaction() throws {
        let pass = try #require(catalog.store.products.first { $0.id == "fx.pass" })
        let first = try #require(try session.buy(pass, in: catalog).transaction)
        let second = try #require(try session.buy(pass, in: catalog).transaction)
        let before = try Data(contentsOf: URL(fileURLWithPath: store.location.statePath))
        _ = try session.deleteTransaction(second.id)
        #expect(try store.read().account.latest(for: "fx.pass")?.id == first.id)
        #expect(try session.status().isEntitled(to: "fx.pass"))
        try before.write(to: URL(fileURLWithPath: store.location.statePath))
        #expect(try store.read().account.latest(for: "fx.pass")?.id == first.id)
    }

    @Test func clearingTransactionsKeepsTheSettingsAndTheClock() throws {
        _ = try session.setSetting(.askToBuy, to: "true")
        _ = try session.setSetting(.timeRate, to: "oneRenewalEveryTwoSeconds")
        let frozen = try session.freezeClock(true)
        _ = try session.setSetting(.askToBuy, to: "false")
        _ = try buy("fx.plus.monthly")
        _ = try buy("fx.coins")
        _ = try session.buy(try catalog.purchasableProduct("fx.levels"), in: catalog, outcome: .askToBuy)
        _ = try session.setSetting(.askToBuy, to: "true")
        let next = try store.read().account.nextTransactionID
        try session.clearTransactions()
        let state = try store.read()
        #expect(try store.transactions().isEmpty)
        #expect(state.account.transactionCount == 0)
        #expect(state.app == PurchaseState.AppRecord())
        #expect(state.simulation.pending.isEmpty)
        #expect(state.simulation.renewals.isEmpty)
        #expect(try store.notificationRecords().isEmpty)
        #expect(state.simulation.settings[.askToBuy] == "true")
        #expect(state.simulation.settings[.timeRate] == "oneRenewalEveryTwoSeconds")
        #expect(try session.clockReading().now == frozen)
        #expect(try session.clockReading().frozen)
        // Identifiers go on: the App Store never hands one out twice.
        _ = try session.setSetting(.askToBuy, to: "false")
        #expect(try buy("fx.coins").id == next)
    }

    @Test func resettingTheSettingsKeepsTheTransactions() throws {
        _ = try session.setSetting(.askToBuy, to: "true")
        _ = try session.buy(try catalog.purchasableProduct("fx.coins"), in: catalog, outcome: .success)
        _ = try session.resetSettings()
        #expect(try store.read().simulation.settings.isEmpty)
        #expect(try store.transactions().count == 1)
    }
}
