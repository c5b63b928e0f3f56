import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// Every date iapsim can produce fits the state format (years 0001 to 9999), on the proleptic
/// Gregorian calendar, and the clock refuses to go where renewals would leave it.
@Suite struct DateBoundsTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession

    init() throws {
        catalog = try Catalog.load(CatalogSource(storeKitPath: Support.fixture("valid.storekit"), productIDsPath: nil))
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func buy(_ id: String) throws -> Transaction {
        try #require(try session.buy(try catalog.purchasableProduct(id), in: catalog).transaction)
    }

    @Test func theClocksLatestDateIsOneTheFormatWrites() {
        #expect(ISO8601Date.string(SimulatedClock.latest) == "9000-01-01T00:00:00Z")
    }

    @Test func periodsFollowTheProlepticGregorianCalendar() {
        let start = ISO8601Date.date("0001-01-31T00:00:00Z")!
        #expect(ISO8601Date.string(SubscriptionPeriod(value: 1, unit: .month).advance(start)) == "0001-02-28T00:00:00Z")
        let leap = ISO8601Date.date("2028-01-31T10:00:00Z")!
        #expect(ISO8601Date.string(SubscriptionPeriod(value: 1, unit: .month).advance(leap)) == "2028-02-29T10:00:00Z")
        #expect(ISO8601Date.string(SubscriptionPeriod(value: 1, unit: .year).advance(leap)) == "2029-01-31T10:00:00Z")
        // Periods that would run past the format end at its last second.
        let late = SimulatedClock.latest
        #expect(SubscriptionPeriod(value: 5_000, unit: .year).advance(late) == ISO8601Date.latest)
        #expect(SubscriptionPeriod(value: Int.max, unit: .month).advance(late) == ISO8601Date.latest)
        #expect(SubscriptionPeriod(value: Int.max / 2, unit: .week).advance(late, times: 3) == ISO8601Date.latest)
        #expect(
            TimeRate.realTime.end(of: .init(value: 1, unit: .year), from: late, count: Int.max) == ISO8601Date.latest)
    }

    @Test func theClockRefusesDatesPastItsBounds() throws {
        _ = try session.freezeClock(true)
        #expect(throws: ClockError.outOfRange(value: "9999-06-01T00:00:00Z", bound: SimulatedClock.latest)) {
            try session.setClock(to: ISO8601Date.date("9999-06-01T00:00:00Z")!)
        }
        let message = ClockError.outOfRange(value: "9999-06-01T00:00:00Z", bound: SimulatedClock.latest)
            .errorDescription!
        #expect(message.contains("9999-06-01T00:00:00Z") && message.contains("9000-01-01T00:00:00Z"))
        #expect(throws: ClockError.self) { try session.advanceClock(by: DateComponents(year: 1_000_000)) }
        #expect(throws: ClockError.self) {
            try session.advanceClock(by: DateComponents(year: 1_000_000, month: 1_000_000, day: 1_000_000))
        }
        // Before 0001: out of range, whatever the clock reads.
        let early = ISO8601Date.date("0000-12-31T00:00:00Z")!
        #expect(throws: ClockError.outOfRange(value: "0000-12-31T00:00:00Z", bound: SimulatedClock.earliest)) {
            try session.setClock(to: early)
        }
        // 0001-01-01 is read as itself (Foundation's calendar made it 0001-01-03).
        do {
            _ = try session.setClock(to: ISO8601Date.earliest)
            Issue.record("the clock moved backwards")
        } catch let error as ClockError {
            #expect(error.errorDescription?.contains("0001-01-01T00:00:00Z is earlier") == true)
        }
        #expect(try session.setClock(to: SimulatedClock.latest) == SimulatedClock.latest)
        #expect(throws: ClockError.self) { try session.advanceClock(by: DateComponents(second: 1)) }
    }

    /// The issue's case: a subscription renewing near the end of the range never writes a date
    /// the state cannot read back.
    @Test func renewalsNearTheBoundStayReadable() throws {
        _ = try session.freezeClock(true)
        _ = try session.setClock(to: ISO8601Date.date("8999-06-01T00:00:00Z")!)
        _ = try buy("fx.plus.yearly")
        _ = try session.advanceClock(by: DateComponents(month: 6))
        #expect(throws: ClockError.self) { try session.advanceClock(by: DateComponents(month: 6)) }
        _ = try session.setClock(to: SimulatedClock.latest)
        let status = try session.status()
        #expect(status.subscriptions.first?.state == .subscribed)
        _ = try session.store.read()
        _ = try session.store.transactions()
        try session.resetAll()
        #expect(!session.store.exists)
    }

    /// More renewals than one step writes: the chain still ends up in the period that holds
    /// the new time, so status is right at once.
    @Test func catchingUpFarPastTheRenewalLimitEndsUpToDate() throws {
        _ = try session.freezeClock(true)
        let first = try buy("fx.plus.monthly")
        _ = try session.setClock(to: ISO8601Date.date("8999-12-31T23:59:59Z")!)
        let subscription = try #require(try session.status().subscriptions.first)
        #expect(subscription.state == .subscribed)
        let expiration = try #require(subscription.expirationDate)
        #expect(expiration > ISO8601Date.date("8999-12-31T23:59:59Z")!)
        #expect(expiration < ISO8601Date.date("9000-02-01T00:00:00Z")!)
        let count = try session.store.transactions().filter { $0.originalID == first.id }.count
        #expect(count == SubscriptionEngine.renewalLimit + 1)
    }

    @Test func aFixedRateCatchesUpToo() throws {
        _ = try session.setSetting(.timeRate, to: "oneRenewalEveryTwoSeconds")
        _ = try session.freezeClock(true)
        _ = try buy("fx.plus.yearly")
        let target = clock.now + 86_400 * 365
        _ = try session.setClock(to: target)
        let subscription = try #require(try session.status().subscriptions.first)
        #expect(subscription.state == .subscribed)
        #expect(subscription.expirationDate.map { $0 > target && $0 <= target + 2 } == true)
    }

    /// Write then read is the identity for states at the bounds: the earliest and latest dates,
    /// the largest identifiers and counts.
    @Test func stateAtTheBoundsRoundTrips() throws {
        var random = Support.SeededRandom(label: "state round trip")
        for _ in 0..<20 {
            let store = Support.store()
            func date() -> Date {
                switch random.next() % 4 {
                case 0: ISO8601Date.earliest
                case 1: ISO8601Date.latest
                case 2: SimulatedClock.latest
                default: ISO8601Date.earliest + Double(random.next() % 315_537_897_599)
                }
            }
            var state = PurchaseState(account: .init(nextTransactionID: UInt64.max - random.next() % 4))
            for index in 0..<Int(random.next() % 5) {
                let id = UInt64.max - 10 - UInt64(index)
                try state.account.record(
                    Transaction(
                        id: id, originalID: id, productID: "p\(index)", productType: .autoRenewable,
                        purchaseDate: date(), originalPurchaseDate: date(), purchasedQuantity: Int.max,
                        expirationDate: date(), revocationDate: random.next() % 2 == 0 ? nil : date(),
                        price: Decimal(string: "999999999999.99")!, currency: "USD", storefrontCountryCode: "USA"),
                    isNew: true)
            }
            state.account.transactionCount = Int.max - Int(random.next() % 8)
            state.app.consumables = ["c": Int.max, "d": 0]
            state.simulation.clock = SimulatedClock(base: date(), anchor: date(), frozen: random.next() % 2 == 0)
            state.simulation.pending = [
                PendingPurchase(
                    id: UInt64.max - 1, productID: "c", productType: .consumable, purchasedQuantity: 10,
                    reason: .askToBuy,
                    requestDate: date())
            ]
            state.simulation.unfinishedTransactionIDs = [UInt64.max, 0]
            try store.update { $0 = state }
            let read = try store.read()
            var expected = state
            expected.account.unsaved = []
            expected.account.journalLength = read.account.journalLength
            #expect(read == expected, "seed \(random.seed)")
            // A second write reads the first.
            try store.update { try $0.simulation.settings.set(.locale, text: "de_DE") }
            #expect(try store.read().account == expected.account, "seed \(random.seed)")
        }
    }
}
