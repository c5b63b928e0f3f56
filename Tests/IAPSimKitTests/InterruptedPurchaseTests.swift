import Foundation
import Testing

@testable import IAPSimKit

/// Interrupted purchases as Apple's "Testing an interrupted purchase" and
/// `SKTestSession.interruptedPurchasesEnabled` describe them: the purchase fails (StoreKit 1
/// queues a failed transaction; StoreKit 2's `purchase()` does not return success) until the
/// issue is resolved (`resolveIssueForTransaction(identifier:)`); then a new, successful
/// transaction arrives through `Transaction.updates`.
@Suite struct InterruptedPurchaseTests {
    let catalog: Catalog
    let events = Support.Events()
    let session: StoreSession

    init() throws {
        catalog = try Support.validCatalog()
        session = StoreSession(
            store: Support.store(), now: { Support.fixedDate }, catalogSettings: catalog.store.settings,
            events: events.record)
    }

    @Test func itFailsThenResolvingDeliversANewTransactionAtTheNextLaunch() throws {
        _ = try session.setSetting(.interruptedPurchases, to: "true")
        let coins = try catalog.purchasableProduct("fx.coins")
        guard case .interrupted(let interrupted) = try session.buy(coins, quantity: 2, in: catalog) else {
            Issue.record("an interrupted purchase did not end unsuccessfully")
            return
        }
        #expect(try session.store.transactions().isEmpty)
        #expect(try session.store.read().app.consumables.isEmpty)
        // Every purchase fails while the setting is on.
        guard case .interrupted(let second) = try session.buy(coins, in: catalog) else {
            Issue.record("not interrupted")
            return
        }
        #expect(second.id != interrupted.id)

        guard
            case .interruptedPurchase(let id, .purchased(let transaction)) = try session.resolve(
                interrupted.id, in: catalog)
        else {
            Issue.record("resolving did not complete the purchase")
            return
        }
        #expect(id == interrupted.id)
        #expect(transaction.id != interrupted.id)  // a new transaction, not the failed one
        #expect(transaction.id > second.id)
        #expect(transaction.purchasedQuantity == 2)
        #expect(try session.store.transactions().map(\.id) == [transaction.id])
        #expect(try session.store.read().app.consumables["fx.coins"] == 2)
        #expect(events.all.isEmpty)

        // The app hears of it when it next launches, once.
        _ = try session.status()
        #expect(events.all.isEmpty)
        _ = try session.status(launchingTheApp: true)
        #expect(events.all == [.delivered(transaction)])
        _ = try session.status(launchingTheApp: true)
        #expect(events.all.count == 1)
        #expect(try session.store.read().simulation.undeliveredTransactionIDs.isEmpty)
        #expect(throws: SimulationError.self) { try session.resolve(interrupted.id, in: catalog) }
    }

    @Test func aPurchaseOrRestoreDeliversWhatWaits() throws {
        let levels = try catalog.purchasableProduct("fx.levels")
        guard case .interrupted(let interrupted) = try session.buy(levels, in: catalog, outcome: .interrupted) else {
            Issue.record("not interrupted")
            return
        }
        _ = try session.resolve(interrupted.id, in: catalog)
        _ = try session.restore()
        #expect(events.all.count == 1)
        #expect(try session.store.read().app.purchasedProductIdentifiers == ["fx.levels"])
    }
}
