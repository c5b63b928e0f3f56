import Foundation
import Testing

#if canImport(IAPSimStoreKit)
    @_spi(IAPSim) import IAPSimStoreKit
#else
    @_spi(IAPSim) import StoreKit
#endif

/// The gate an `SKTestSession`'s process closes as it exits, before its temporary state folder
/// is removed: a task still buying or finishing then must end first, or its write makes the
/// folder again (or leaves a file in it) after the removal.
@Suite struct CallGateTests {
    /// Starts a call on `gate` on a thread of its own; the call runs `ending` and ends when the
    /// semaphore returned is signalled (or after 30 s).
    private func startCall(on gate: CallGate, ending: @escaping @Sendable () -> Void) throws -> DispatchSemaphore {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? gate.run {
                started.signal()
                _ = release.wait(timeout: .now() + 30)
                ending()
            }
        }
        try #require(started.wait(timeout: .now() + 30) == .success)
        return release
    }

    @Test func closingWaitsForTheCallUnderWayAndRefusesNewOnes() throws {
        let gate = CallGate()
        let log = Recorder<String>()
        let closerDone = DispatchSemaphore(value: 0)
        let release = try startCall(on: gate) { log.append("the call ended") }
        Thread.detachNewThread {
            let allEnded = gate.close(waitingUpTo: 30)
            log.append("closed, every call ended: \(allEnded)")
            closerDone.signal()
        }
        for _ in 0..<1_000 where !gate.isClosed { Thread.sleep(forTimeInterval: 0.01) }
        #expect(gate.isClosed)
        #expect(throws: CallGate.Closed.self) { try gate.run { log.append("a call after closing") } }
        // The closer must still be waiting: give it time to return early if it would.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(log.values.isEmpty)
        release.signal()
        #expect(closerDone.wait(timeout: .now() + 30) == .success)
        #expect(log.values == ["the call ended", "closed, every call ended: true"])
    }

    @Test func aCallThatNeverEndsHoldsTheExitOnlyUntilTheTimeout() throws {
        let gate = CallGate()
        let release = try startCall(on: gate) {}
        #expect(gate.close(waitingUpTo: 0.05) == false)
        release.signal()
    }

    @Test func withNoCallUnderWayClosingIsImmediate() {
        let gate = CallGate()
        #expect(throws: Never.self) { try gate.run { 1 } }
        #expect(gate.close(waitingUpTo: 30))
        #expect(gate.isClosed)
    }
}
