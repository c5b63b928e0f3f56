import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's open connections and what each is doing, under one lock. It is the only
/// place a connection's socket is closed (by its own thread) or shut down (by the acceptor
/// or `stop()`), and both happen under the lock, so a shutdown never reaches a descriptor
/// number that was closed and reused.
final class ConnectionRegistry: @unchecked Sendable {
    enum Activity: Equatable {
        /// Between requests: nothing of a request has arrived. Such a connection may be
        /// closed to make room, and is closed at once by `stop()`.
        case idle(since: ContinuousClock.Instant)
        /// Part of a request has arrived; it has until its read deadline.
        case reading
        /// The handler runs or the response is being written: left to finish.
        case handling
    }

    enum Admission: Equatable {
        case admitted(id: Int)
        case full
        case stopping
    }

    private struct Entry {
        var fd: Int32
        var activity: Activity
        /// Shut down to make room; no longer counted against the limit.
        var evicted = false
    }

    private let condition = NSCondition()
    private var entries: [Int: Entry] = [:]
    private var admittedCount = 0
    private var nextID = 0
    private var stopping = false
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    var isStopping: Bool { condition.withLock { stopping } }

    /// The number of connections open now, evicted ones included.
    var openCount: Int { condition.withLock { entries.count } }

    /// Registers a new connection if there is room, making room by shutting down the
    /// connection idle the longest when there is none.
    func admit(_ fd: Int32) -> Admission {
        condition.withLock {
            if stopping { return .stopping }
            if admittedCount >= limit {
                let idle = entries.compactMap { id, entry -> (id: Int, since: ContinuousClock.Instant)? in
                    guard !entry.evicted, case .idle(let since) = entry.activity else { return nil }
                    return (id, since)
                }
                guard let oldest = idle.min(by: { $0.since < $1.since }) else { return .full }
                entries[oldest.id]?.evicted = true
                admittedCount -= 1
                _ = shutdown(entries[oldest.id]!.fd, Int32(SHUT_RDWR))
            }
            nextID += 1
            entries[nextID] = Entry(fd: fd, activity: .idle(since: .now))
            admittedCount += 1
            return .admitted(id: nextID)
        }
    }

    /// Records what connection `id` does next; false when it should close instead (it was
    /// evicted, or the server is stopping and it is not mid-response).
    func enter(_ id: Int, _ activity: Activity) -> Bool {
        condition.withLock {
            guard let entry = entries[id], !entry.evicted else { return false }
            if stopping, activity != .handling { return false }
            entries[id]?.activity = activity
            return true
        }
    }

    /// Closes connection `id`'s socket and forgets it.
    func close(_ id: Int) {
        condition.withLock {
            guard let entry = entries.removeValue(forKey: id) else { return }
            if !entry.evicted { admittedCount -= 1 }
            #if canImport(Glibc)
                _ = Glibc.close(entry.fd)
            #else
                _ = Darwin.close(entry.fd)
            #endif
            condition.broadcast()
        }
    }

    /// Refuses new connections and ends every one not in the middle of a response.
    func beginStopping() {
        condition.withLock {
            stopping = true
            for entry in entries.values where entry.activity != .handling {
                _ = shutdown(entry.fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// Ends every connection, mid-response or not.
    func shutDownAll() {
        condition.withLock {
            for entry in entries.values { _ = shutdown(entry.fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Waits until every connection has closed, or `deadline`; returns whether they all did.
    @discardableResult
    func waitUntilEmpty(until deadline: ContinuousClock.Instant) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !entries.isEmpty {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) * 1e-18))
        }
        return true
    }
}
