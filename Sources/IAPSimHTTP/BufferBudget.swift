import Foundation

/// The bytes of requests a server may hold in memory at once, across all its connections:
/// request heads and bodies as they arrive, until their handlers return. Each connection's
/// limit bounds one request; this bounds them together, so many clients posting large
/// bodies at once cannot take the machine's memory. A request that would go past it is
/// answered `503 Service Unavailable` with `Retry-After` and its connection closed.
///
/// One budget may be shared by several servers of a process (give each the same instance).
public final class BufferBudget: @unchecked Sendable {
    /// The most bytes held at once.
    public let capacity: Int
    private let lock = NSLock()
    private var used = 0

    /// A budget of `capacity` bytes (clamped to 0 or more).
    public init(capacity: Int) { self.capacity = max(0, capacity) }

    /// The bytes reserved now, by every connection.
    public var reserved: Int { lock.withLock { used } }

    /// Takes `bytes` more from the budget if they fit.
    func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        return lock.withLock {
            guard bytes <= capacity - used else { return false }
            used += bytes
            return true
        }
    }

    /// Gives back `bytes` reserved earlier.
    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        lock.withLock { used = max(0, used - bytes) }
    }

    /// One connection's share of a budget: it grows as the request's bytes arrive and is
    /// given back when the request has been answered, or the connection ends.
    final class Reservation {
        let budget: BufferBudget
        private(set) var bytes = 0

        init(_ budget: BufferBudget) { self.budget = budget }

        /// Grows the share to `total` bytes if the budget has room; false if it has not.
        func grow(to total: Int) -> Bool {
            guard total > bytes else { return true }
            guard budget.reserve(total - bytes) else { return false }
            bytes = total
            return true
        }

        /// Gives the whole share back.
        func releaseAll() {
            budget.release(bytes)
            bytes = 0
        }

        deinit { budget.release(bytes) }
    }
}
