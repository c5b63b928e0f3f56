import Foundation
import IAPSimKit
import Testing

@testable import iapsim

/// The hardening issue's cases as a user meets them: exit codes and messages.
@Suite struct HardeningTests {
    @Test func theClockRefusesDatesPastItsBoundWithAUsageError() {
        let harness = Harness()
        #expect(harness.run("clock", "freeze").status == 0)
        let far = harness.run("clock", "set", "9999-06-01T00:00:00Z")
        #expect(far.status == 64)
        #expect(far.stderr.contains("9999-06-01T00:00:00Z") && far.stderr.contains("9000-01-01T00:00:00Z"))
        let impossible = harness.run("clock", "set", "2030-02-30T00:00:00Z")
        #expect(impossible.status == 64)
        #expect(impossible.stderr.contains("2030-02-30T00:00:00Z"))
        let early = harness.run("clock", "set", "0001-01-01T00:00:00Z")
        #expect(early.status == 64)
        #expect(early.stderr.contains("0001-01-01T00:00:00Z is earlier"))
        #expect(harness.run("clock", "set", "8999-06-01T00:00:00Z").status == 0)
        #expect(harness.run("buy", "com.example.app.pro.monthly").status == 0)
        #expect(harness.run("clock", "advance", "P6M").status == 0)
        #expect(harness.run("clock", "advance", "P6M").status == 64)
        #expect(harness.run("status").status == 0)
        #expect(harness.run("reset", "--yes").status == 0)
    }

    @Test func aBalanceThatWouldOverflowIsCorruptState() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.coins100").status == 0)
        let store = StateStore(location: StateLocation(directory: harness.stateDirectory))
        try store.update { $0.app.consumables["com.example.app.coins100"] = Int.max }
        let result = harness.run("buy", "com.example.app.coins100")
        #expect(result.status == 65)
        #expect(result.stderr.contains("app.consumables.com.example.app.coins100"))
        #expect(try store.read().app.consumables["com.example.app.coins100"] == Int.max)
    }
}
