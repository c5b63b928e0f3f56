import Foundation

/// The calls under way on a store, and the door that closes it: once `close` is called, no
/// call starts, and `close` returns when the calls already under way have ended (or when
/// `timeout` has passed, so an exit is never held for good).
@_spi(IAPSim) public final class CallGate: @unchecked Sendable {
    /// The error of a call made after `close`.
    public struct Closed: LocalizedError {
        public var errorDescription: String? { "the process is exiting: its store is closed" }
    }

    /// Guards `closed` and `underWay`, and wakes `close` when the last call ends.
    private let condition = NSCondition()
    private var closed = false
    private var underWay = 0

    public init() {}

    public var isClosed: Bool { condition.withLock { closed } }

    /// Runs `body` as one call under way.
    /// - Throws: `Closed` once the gate is closed; what `body` throws.
    public func run<Result>(_ body: () throws -> Result) throws -> Result {
        try condition.withLock {
            if closed { throw Closed() }
            underWay += 1
        }
        defer {
            condition.withLock {
                underWay -= 1
                if underWay == 0 { condition.broadcast() }
            }
        }
        return try body()
    }

    /// Closes the gate and waits for the calls under way, `timeout` seconds at most.
    /// - Returns: whether every call had ended.
    @discardableResult
    public func close(waitingUpTo timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        closed = true
        while underWay > 0, condition.wait(until: deadline) {}
        return underWay == 0
    }
}
