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
        /// Accepted, and nothing received yet. Closed to make room after the idle ones, as
        /// a reader is; closed at once by `stop()`.
        case opening(since: ContinuousClock.Instant)
        /// Between requests: nothing of the next request has arrived. Such a connection may
        /// be closed to make room, and is closed at once by `stop()`.
        case idle(since: ContinuousClock.Instant)
        /// Part of a request has arrived, since the first byte; it has until its read deadline.
        /// Such a connection may be closed to make room when none is idle: the one reading the
        /// longest, a slow client.
        case reading(since: ContinuousClock.Instant)
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
        condition.withLock {
            entries.values.filter {
                switch $0.activity {
                case .reading, .handling: true
                case .opening, .idle, .closing: false
                }
            }.count
        }
    }

    /// Registers a new connection if there is room, making room when there is none by
    /// shutting down the connection that needs it least (`leastNeeded`).
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
            entries[nextID] = Entry(fd: fd, activity: .opening(since: .now))
            admittedCount += 1
            return .admitted(id: nextID)
        }
    }

    /// A connection that is closing anyway, else the one idle the longest, else the one that
    /// has waited longest for its request to arrive (opened and silent, or reading); nil when
    /// every connection runs a handler or writes a response. Called under the lock.
    ///
    /// Readers go last but do go: otherwise clients that each send a byte and wait fill every
    /// slot (slowloris) and a good client is refused until they time out. A good client sends
    /// its request as soon as it connects, so the one of longest standing is the slow one.
    private func leastNeeded() -> Int? {
        var idle: (id: Int, since: ContinuousClock.Instant)?
        var waiting: (id: Int, since: ContinuousClock.Instant)?
        for (id, entry) in entries where !entry.evicted {
            switch entry.activity {
            case .closing: return id
            case .idle(let since) where idle.map({ since < $0.since }) ?? true: idle = (id, since)
            case .opening(let since) where waiting.map({ since < $0.since }) ?? true,
                .reading(let since) where waiting.map({ since < $0.since }) ?? true:
                waiting = (id, since)
            default: continue
            }
        }
        return idle?.id ?? waiting?.id
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
