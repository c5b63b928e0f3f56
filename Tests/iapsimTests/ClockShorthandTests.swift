import Foundation
import IAPSimKit
import Testing

@testable import iapsim

/// The durations and names people type: `clock advance 30d`, the clock's own instant, Xcode's
/// setting names.
@Suite struct ClockShorthandTests {
    @Test(arguments: [
        ("30d", "2026-02-14T12:00:00Z"), ("2w", "2026-01-29T12:00:00Z"), ("12h", "2026-01-16T00:00:00Z"),
        ("1y", "2027-01-15T12:00:00Z"), ("3mo", "2026-04-15T12:00:00Z"), ("90min", "2026-01-15T13:30:00Z"),
        ("45s", "2026-01-15T12:00:45Z"), ("P1M", "2026-02-15T12:00:00Z"),
    ])
    func advanceTakesShorthands(duration: String, expected: String) {
        let harness = Harness()
        #expect(harness.run("clock", "freeze").status == 0)
        let result = harness.run("clock", "advance", duration)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(expected), "\(result.stdout)")
    }

    @Test(arguments: ["5m", "1x", "d", "3 d", "0x1d"])
    func ambiguousOrBadShorthandsAreRefused(duration: String) {
        let result = Harness().run("clock", "advance", duration)
        #expect(result.status == 64)
        #expect(result.stderr.contains("30d, 2w, 12h, 1y, 3mo"))
    }

    /// The fixed test clock reads 12:00:00.5: setting it to 12:00:00, the instant it shows, is
    /// no move backwards.
    @Test func settingTheClockToTheInstantItShowsIsNotEarlier() {
        let harness = Harness()
        harness.now = Date(timeIntervalSince1970: 1_768_478_400.5)
        let shown = harness.run("clock").stdout.prefix(20)
        #expect(shown == "2026-01-15T12:00:00Z")
        let set = harness.run("clock", "set", String(shown))
        #expect(set.status == 0, "\(set.stderr)")
        #expect(harness.run("clock", "set", "2026-01-15T11:59:59Z").status == 64, "a second before is earlier")
    }

    @Test(arguments: [
        ("askToBuyEnabled", "ask-to-buy"), ("timeRate", "time-rate"), ("billingGracePeriodIsEnabled", "grace-period"),
        ("ask_to_buy", "ask-to-buy"),
    ])
    func xcodeSettingNamesAreCorrected(typed: String, meant: String) {
        let result = Harness().run("settings", "set", typed, "true")
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean '\(meant)'?"), "\(result.stderr)")
    }
}

/// `trigger` says what it made happen on the way to the notification asked for.
@Suite struct TriggerNoteTests {
    @Test func aFixturePurchaseIsSaid() {
        let harness = Harness()
        let result = harness.run("trigger", "DID_RENEW")
        #expect(result.status == 0)
        #expect(
            result.stderr.contains("to make DID_RENEW happen, trigger first made these happen on the state: SUBSCRIBED")
        )
        let again = harness.run("trigger", "TEST")
        #expect(!again.stderr.contains("first made"), "nothing else happened")
    }
}

/// A product identifier where a transaction identifier goes: its latest transaction is named.
@Suite struct ProductForTransactionTests {
    @Test func theLatestTransactionIsNamed() {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.coins100", "--yes").status == 0)
        #expect(harness.run("buy", "com.example.app.coins100", "--yes").status == 0)
        let result = harness.run("refund", "com.example.app.coins100")
        #expect(result.status == 64)
        #expect(result.stderr.contains("com.example.app.coins100's latest transaction is 2"), "\(result.stderr)")
    }
}
