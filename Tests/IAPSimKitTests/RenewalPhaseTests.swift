import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// A subscription's renewal phase: one value, moved between its cases in one place each, and
/// kept in the state file in the four fields it had before it was one value.
@Suite struct RenewalPhaseTests {
    private let catalog: Catalog
    private let clock = Support.Clock()
    private let session: StoreSession

    init() throws {
        catalog = try Catalog.load(
            CatalogSource(storeKitPath: Support.fixture("valid.storekit"), productIDsPath: nil))
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func renewal() throws -> RenewalInfo {
        try #require(try session.store.read().simulation.renewals.first)
    }

    private func names() throws -> [String] { try session.notifications().map(\.notification.name) }

    /// Billing retry that runs out in the step that fails the renewal, and billing retry that
    /// runs out in a later step, end alike: one transition, written once.
    @Test(arguments: [true, false])
    func billingRetryEndsTheSameInOneStepOrInSeveral(oneStep: Bool) throws {
        _ = try session.setSetting(.billingRetry, to: "true")
        _ = try session.setSetting(.gracePeriod, to: "true")
        _ = try session.buy(try catalog.purchasableProduct("fx.plus.yearly"), in: catalog)
        if oneStep {
            clock.advance(days: 500)
            _ = try session.status()
        } else {
            clock.advance(days: 366)
            _ = try session.status()
            guard case .inGracePeriod = try renewal().phase else {
                Issue.record("expected the grace period, found \(try renewal().phase)")
                return
            }
            clock.advance(days: 20)
            _ = try session.status()
            guard case .inBillingRetry = try renewal().phase else {
                Issue.record("expected billing retry, found \(try renewal().phase)")
                return
            }
            clock.advance(days: 114)
            _ = try session.status()
        }
        let info = try renewal()
        #expect(info.phase == .expired)
        #expect(!info.willAutoRenew && info.expirationReason == .billingError)
        #expect(!info.isInBillingRetry && info.gracePeriodExpirationDate == nil && info.billingRetryEndDate == nil)
        #expect(
            Array(try names().suffix(3))
                == ["DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "EXPIRED/BILLING_RETRY"])
        #expect(try session.status().subscriptions.first?.state == .expired)
    }

    /// Each phase is written in the fields iapsim wrote before (`isInBillingRetry`,
    /// `billingRetryEndDate`, `gracePeriodExpirationDate`, `expirationNotified`) and reads back
    /// as itself; a revoked chain reads as revoked from the snapshot, which holds its latest
    /// transaction.
    @Test func everyPhaseIsWrittenInTheFieldsOfBeforeAndReadsBack() throws {
        let grace = Date(timeIntervalSince1970: 1_800_000_000)
        let retry = Date(timeIntervalSince1970: 1_805_000_000)
        let cases: [(RenewalInfo.Phase, (Bool, String?, String?, Bool))] = [
            (.active, (false, nil, nil, false)),
            (
                .inGracePeriod(expires: grace, retryEnds: retry),
                (true, ISO8601Date.string(retry), ISO8601Date.string(grace), false)
            ),
            (.inBillingRetry(ends: retry), (true, ISO8601Date.string(retry), nil, false)),
            (.expired, (false, nil, nil, true)),
        ]
        _ = try session.buy(try catalog.purchasableProduct("fx.plus.monthly"), in: catalog)
        var info = try renewal()
        for (phase, fields) in cases {
            info.phase = phase
            let json = info.json
            #expect(json["isInBillingRetry"] == .bool(fields.0))
            #expect(json["billingRetryEndDate"]?.stringValue == fields.1)
            #expect(json["gracePeriodExpirationDate"]?.stringValue == fields.2)
            #expect(json["expirationNotified"] == .bool(fields.3))
            #expect(try RenewalInfo(try Reader(json, at: "")).phase == phase)
        }
        info.phase = .revoked
        var expired = info
        expired.phase = .expired
        #expect(info.json == expired.json)
    }

    @Test func aRevokedChainReadsBackRevokedAndARefundReversedMakesItActive() throws {
        let product = try catalog.purchasableProduct("fx.plus.monthly")
        let first = try #require(try session.buy(product, in: catalog).transaction)
        _ = try session.refund(first.id, reason: .other)
        #expect(try renewal().phase == .revoked)
        let reread = try StateStore(location: session.store.location).read()
        #expect(reread.simulation.renewals.first?.phase == .revoked)
        #expect(try session.status().subscriptions.first?.state == .revoked)
        _ = try session.reverseRefund(first.id)
        #expect(try renewal().phase == .active)
    }
}

/// `iapsim trigger`'s names are a closed set of notification types, each a `notificationType`
/// and an optional `subtype` Apple defines.
@Suite struct NotificationTriggerTests {
    @Test func everyTriggerIsANotificationTypeAndSubtype() throws {
        for trigger in NotificationTrigger.allCases {
            let name = trigger.kind.rawValue + (trigger.subtype.map { "/" + $0.rawValue } ?? "")
            #expect(name == trigger.rawValue)
            #expect(try NotificationTrigger(text: trigger.rawValue.lowercased()) == trigger)
        }
        #expect(StoreSession.triggerable == NotificationTrigger.allCases.map(\.rawValue))
        #expect(throws: SimulationError.self) { try NotificationTrigger(text: "DID_RENEW/VOLUNTARY") }
    }
}
