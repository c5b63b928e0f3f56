import Foundation
import Testing

@testable import iapsim

/// Turning auto-renew off, or declining a price increase, after a failed renewal ends the
/// subscription now (Apple, "Testing failing subscription renewals and In-App Purchases"):
/// what the user reads says so, never "stays active until" a date already past.
@Suite struct GracePeriodCommandTests {
    let monthly = "com.example.app.pro.monthly"

    /// A subscription whose renewal after the free week failed: in its grace period.
    private func inGrace() -> Harness {
        let harness = Harness()
        #expect(harness.run("settings", "set", "billing-retry", "true").status == 0)
        #expect(harness.run("settings", "set", "grace-period", "true").status == 0)
        #expect(harness.run("buy", monthly, "--yes").status == 0)
        #expect(harness.run("clock", "advance", "P8D").status == 0)
        return harness
    }

    @Test func cancellingInGraceSaysTheSubscriptionExpiredNow() throws {
        let harness = inGrace()
        let result = harness.run("cancel-subscription", monthly)
        #expect(result.status == 0)
        #expect(
            result.stdout
                == "Auto-renew is off for \(monthly): its renewal had failed, so the subscription expired now "
                + "(EXPIRED/VOLUNTARY).\n")
        let undo = harness.run("cancel-subscription", monthly, "--undo")
        #expect(undo.status != 0 && undo.stderr.contains("buy it again"))
    }

    @Test func decliningAnIncreaseInGraceSaysTheSubscriptionExpiredNow() throws {
        let harness = inGrace()
        #expect(harness.run("price-increase", monthly, "9.99").status == 0)
        let result = harness.run("price-increase", "decline", monthly)
        #expect(result.status == 0)
        #expect(result.stdout.contains("expired now (EXPIRED/PRICE_INCREASE"))
        #expect(!result.stdout.contains(" on 20"))
    }
}
