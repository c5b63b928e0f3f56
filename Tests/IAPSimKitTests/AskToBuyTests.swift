import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// Ask to Buy as Apple documents it ("Testing Ask to Buy", `SKPaymentTransactionState.deferred`):
/// one request per product however often the child asks, each new ask starting the 24 hours
/// again; a request nobody answers within 24 hours is deleted and the app hears nothing; and an
/// approved request completes one purchase, never a second charge.
@Suite struct AskToBuyTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let events = Support.Events()
    let session: StoreSession

    init() throws {
        catalog = try Support.validCatalog()
        let clock = self.clock
        session = StoreSession(
            store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings,
            events: events.record)
    }

    private func buy(_ id: String, _ outcome: StoreSession.Outcome? = .askToBuy) throws -> StoreSession.PurchaseResult {
        try session.buy(try catalog.purchasableProduct(id), in: catalog, outcome: outcome)
    }

    private func advance(hours: Int, seconds: TimeInterval = 0) throws {
        clock.advance(seconds: TimeInterval(hours * 3600) + seconds)
        _ = try session.status()
    }

    @Test func repeatedRequestsForAProductAreOneRequest() throws {
        guard case .pending(let first) = try buy("fx.levels") else {
            Issue.record("not pending")
            return
        }
        try advance(hours: 5)
        guard case .requestRepeated(let again) = try buy("fx.levels") else {
            Issue.record("a repeated request is not the same request")
            return
        }
        #expect(again.id == first.id)
        #expect(again.requestDate == clock.now)  // its 24 hours start again
        #expect(try session.status().pending.map(\.id) == [first.id])
        // Another product is another request.
        guard case .pending(let other) = try buy("fx.coins") else {
            Issue.record("not pending")
            return
        }
        #expect(other.id != first.id)
        #expect(try session.status().pending.count == 2)
    }

    @Test func approvingARepeatedRequestChargesOnce() throws {
        _ = try buy("fx.levels")
        _ = try buy("fx.levels")
        let pending = try #require(try session.status().pending.first)
        guard case .purchased(let transaction) = try session.approve(pending.id, in: catalog) else {
            Issue.record("not purchased")
            return
        }
        #expect(transaction.id == pending.id)
        #expect(try session.store.transactions().map(\.id) == [pending.id])
        #expect(throws: SimulationError.self) { try session.approve(pending.id, in: catalog) }
        #expect(try session.store.transactions().count == 1)
    }

    @Test func approvingWhatTheAccountOwnsByThenChargesNothing() throws {
        guard case .pending(let pending) = try buy("fx.levels") else {
            Issue.record("not pending")
            return
        }
        _ = try buy("fx.levels", .success)  // bought meanwhile, Ask to Buy off
        guard case .redownloaded(let owned) = try session.approve(pending.id, in: catalog) else {
            Issue.record("a non-consumable the account owns was charged again")
            return
        }
        #expect(owned.id != pending.id)
        #expect(try session.store.transactions().count == 1)
        #expect(try session.status().pending.isEmpty)
    }

    @Test func anUnansweredRequestExpiresAfter24HoursDeclined() throws {
        guard case .pending(let pending) = try buy("fx.coins") else {
            Issue.record("not pending")
            return
        }
        try advance(hours: 23, seconds: 3599)
        #expect(try session.status().pending.map(\.id) == [pending.id])
        #expect(events.all.isEmpty)
        try advance(hours: 0, seconds: 1)
        let status = try session.status()
        #expect(status.pending.isEmpty)
        #expect(status.expiredRequests.map(\.id) == [pending.id])
        #expect(status.expiredRequests.first?.expirationDate == pending.requestDate + 86_400)
        #expect(events.all == [.askToBuyExpired(pending)])
        #expect(throws: SimulationError.self) { try session.approve(pending.id, in: catalog) }
        #expect(throws: SimulationError.self) { try session.decline(pending.id) }
        #expect(try session.store.transactions().isEmpty)
        #expect(try session.store.read().app.consumables.isEmpty)
        // Asking again is a new request.
        guard case .pending(let again) = try buy("fx.coins") else {
            Issue.record("not pending")
            return
        }
        #expect(again.id != pending.id)
    }

    @Test func askingAgainStartsThe24HoursAgain() throws {
        guard case .pending(let pending) = try buy("fx.coins") else {
            Issue.record("not pending")
            return
        }
        try advance(hours: 20)
        _ = try buy("fx.coins")
        try advance(hours: 20)  // 40 hours after the first ask, 20 after the last
        #expect(try session.status().pending.map(\.id) == [pending.id])
        try advance(hours: 4)
        #expect(try session.status().expiredRequests.map(\.id) == [pending.id])
    }

    /// Schema 2 kept every repeated request; reading such a file merges them.
    @Test func aStateWithDuplicateRequestsIsReadAsOneRequest() throws {
        let store = Support.store()
        try FileManager().createDirectory(atPath: store.location.directory, withIntermediateDirectories: true)
        let request = { (id: Int, date: String, quantity: Int) in
            """
            {"id": \(id), "productID": "fx.coins", "productType": "consumable", "purchasedQuantity": \(quantity), \
            "reason": "askToBuy", "requestDate": "\(date)"}
            """
        }
        let text = """
            {"schemaVersion": 2, "app": {"purchasedProductIdentifiers": [], "consumables": {}},
             "account": {"nextTransactionID": 4, "transactionCount": 0, "journalLength": 0, "current": []},
             "simulation": {"settings": {}, "pending": [\(request(1, "2026-01-15T12:00:00Z", 1)),
               \(request(2, "2026-01-15T13:00:00Z", 3)),
               {"id": 3, "productID": "fx.levels", "productType": "nonConsumable", "purchasedQuantity": 1,
                "reason": "interrupted", "requestDate": "2026-01-15T13:00:00Z"}],
              "unfinishedTransactionIDs": [], "renewals": []}}
            """
        try text.write(toFile: store.location.statePath, atomically: true, encoding: .utf8)
        let pending = try store.read().simulation.pending
        #expect(pending.map(\.id) == [1, 3])
        #expect(pending.first?.requestDate == ISO8601Date.date("2026-01-15T13:00:00Z"))
        #expect(pending.first?.purchasedQuantity == 3)
        try store.update { $0.app.consumables["fx.coins"] = 0 }
        #expect(try String(contentsOfFile: store.location.statePath, encoding: .utf8).contains("\"schemaVersion\": 5"))
    }
}
