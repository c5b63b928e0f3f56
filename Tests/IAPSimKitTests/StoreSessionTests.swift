import Foundation
import Testing

@testable import IAPSimKit

@Suite struct StoreSessionTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession

    init() throws {
        catalog = try Support.validCatalog()
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func buy(_ id: String, quantity: PurchaseQuantity = 1) throws -> StoreSession.PurchaseResult {
        try session.buy(try catalog.purchasableProduct(id), quantity: quantity, in: catalog)
    }

    @Test func consumablesAddToTheirBalanceWithATransactionEach() throws {
        _ = try buy("fx.coins", quantity: 3)
        let second = try buy("fx.coins")
        #expect(second.transaction?.id == 2)
        #expect(second.transaction?.price == Decimal(string: "0.99"))
        let state = try session.store.read()
        #expect(state.app.consumables["fx.coins"] == 4)
        #expect(try session.store.transactions().map(\.purchasedQuantity) == [3, 1])
        #expect(try session.store.transactions().first?.price == Decimal(string: "2.97"))
        #expect(state.app.purchasedProductIdentifiers.isEmpty)
    }

    @Test func buyingANonConsumableAgainIsAFreeRedownload() throws {
        let first = try buy("fx.levels")
        guard case .purchased = first else {
            Issue.record("first purchase: \(first)")
            return
        }
        let again = try buy("fx.levels")
        #expect(again == .redownloaded(try #require(first.transaction)))
        #expect(try session.store.transactions().count == 1)
    }

    @Test func quantityIsForConsumablesOnly() throws {
        #expect(throws: PurchaseError.invalidQuantity(productID: "fx.levels", quantity: 2)) {
            try buy("fx.levels", quantity: 2)
        }
    }

    @Test func aCancelledSubscriptionIsActiveUntilItsPeriodEnds() throws {
        let yearly = try session.buy(
            try #require(catalog.store.products.first { $0.id == "fx.plus.yearly" }), in: catalog)
        let transaction = try #require(yearly.transaction)
        #expect(Support.iso(transaction.expirationDate!) == "2027-01-15T12:00:00Z")
        #expect(try session.status().subscriptions.first?.state == .subscribed)
        _ = try session.cancelSubscription("fx.plus.yearly")
        clock.advance(days: 300)
        #expect(try session.status().subscriptions.first?.state == .subscribed)
        clock.advance(days: 66)
        let status = try session.status()
        #expect(status.subscriptions.first?.state == .expired)
        #expect(status.entitlements.isEmpty)
    }

    @Test func anIntroductoryOfferIsUsedOncePerGroup() throws {
        let trial = try #require(try buy("fx.plus.monthly").transaction)
        #expect(trial.offerType == .introductory)
        #expect(trial.price == Decimal(string: "0"))
        #expect(Support.iso(trial.expirationDate!) == "2026-01-22T12:00:00Z")
        _ = try session.expireSubscription("fx.plus.monthly")
        clock.advance(days: 8)
        let paid = try #require(try buy("fx.plus.monthly").transaction)
        #expect(paid.offerType == nil)
        #expect(paid.price == Decimal(string: "2.99"))
        #expect(paid.originalID == trial.id)
        #expect(Support.iso(paid.expirationDate!) == "2026-02-23T12:00:00Z")
    }

    @Test func anActiveSubscriptionIsNotBoughtTwice() throws {
        let first = try buy("fx.plus.monthly")
        #expect(try buy("fx.plus.monthly") == .alreadySubscribed(try #require(first.transaction)))
    }

    @Test func onlyOneLevelOfAGroupIsActive() throws {
        let monthly = try #require(try buy("fx.plus.monthly").transaction)
        let yearlyProduct = try #require(catalog.store.products.first { $0.id == "fx.plus.yearly" })
        let yearly = try #require(try session.buy(yearlyProduct, in: catalog).transaction)
        #expect(yearly.originalID == monthly.originalID)
        let status = try session.status()
        #expect(status.entitlements.map(\.productID) == ["fx.plus.yearly"])
    }

    @Test func restoreAfterAReinstallBringsBackWhatIsRestorable() throws {
        _ = try buy("fx.coins")
        _ = try buy("fx.levels")
        _ = try buy("fx.plus.monthly")
        try session.resetApp()
        let afterReset = try session.store.read()
        #expect(afterReset.app == PurchaseState.AppRecord())
        #expect(afterReset.account.transactionCount == 3)
        #expect(try session.restore().productIDs == ["fx.levels", "fx.plus.monthly"])
        let restored = try session.store.read().app
        #expect(restored.purchasedProductIdentifiers == ["fx.levels", "fx.plus.monthly"])
        #expect(restored.consumables.isEmpty)  // consumables are not restored
    }

    @Test func restoreWithNothingOwnedRestoresNothing() throws {
        #expect(try session.restore().productIDs.isEmpty)
        _ = try buy("fx.coins")
        #expect(try session.restore().productIDs.isEmpty)
    }

    @Test func anExpiredSubscriptionIsNotRestored() throws {
        _ = try buy("fx.plus.monthly")
        _ = try session.cancelSubscription("fx.plus.monthly")
        try session.resetApp()
        clock.advance(days: 30)
        #expect(try session.restore().productIDs.isEmpty)
    }

    @Test func resetAllErasesTheAccount() throws {
        _ = try buy("fx.levels")
        try session.resetAll()
        #expect(try session.store.read() == PurchaseState())
        #expect(try session.restore().productIDs.isEmpty)
    }
}
