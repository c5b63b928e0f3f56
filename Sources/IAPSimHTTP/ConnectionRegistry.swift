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
        /// The last response is written; the client's last bytes are being drained. The
        /// first to be closed to make room.
        case closing
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

    /// The number of connections with part of a request in, or a response in hand.
    var busyCount: Int {
        condition.withLock { entries.values.filter { $0.activity == .reading || $0.activity == .handling }.count }
    }

    /// Registers a new connection if there is room, making room by shutting down the
    /// connection idle the longest when there is none.
    func admit(_ fd: Int32) -> Admission {
        condition.withLock {
            if stopping { return .stopping }
            if admittedCount >= limit {
                guard let victim = leastNeeded() else { return .full }
                entries[victim]?.evicted = true
                admittedCount -= 1
                _ = shutdown(entries[victim]!.fd, Int32(SHUT_RDWR))
            }
            nextID += 1
            entries[nextID] = Entry(fd: fd, activity: .idle(since: .now))
            admittedCount += 1
            return .admitted(id: nextID)
        }
    }

    /// A connection that is closing anyway, else the one idle the longest; nil when every
    /// connection is mid-request or mid-response. Called under the lock.
    private func leastNeeded() -> Int? {
        var oldest: (id: Int, since: ContinuousClock.Instant)?
        for (id, entry) in entries where !entry.evicted {
            switch entry.activity {
            case .closing: return id
            case .idle(let since) where oldest.map({ since < $0.since }) ?? true: oldest = (id, since)
            default: continue
            }
        }
        return oldest?.id
    }

    /// Records what connection `id` does next; false when it should close instead (it was
    /// evicted, or the server is stopping and it is not mid-response).
    func enter(_ id: Int, _ activity: Activity) -> Bool {
        condition.withLock {
            guard let entry = entries[id], !entry.evicted else { return false }
            if stopping, activity != .handling, activity != .closing { return false }
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
