import Foundation
import IAPSimJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a deliverer keeps of the notifications journal: the notifications not delivered yet,
/// each with its failed attempts. It reads only what the journal gained since its last look,
/// so memory and time follow what is pending and new, not the whole history.
struct DeliveryQueue {
    /// A notification not delivered yet.
    struct Pending {
        var notification: ServerNotification
        /// Its place in the journal: 1 for the first notification.
        var number: Int
        var line: StateStore.NotificationLine
        var failures = 0
        var lastAttempt: Date?

        /// When its next attempt falls due on Apple's schedule: the first at the event
        /// (at `now` if the clock was set back past it), each retry `delays[n]` after the
        /// previous attempt; nil once the retries are spent.
        func dueDate(delays: [TimeInterval], now: Date) -> Date? {
            guard failures > 0, let lastAttempt else { return min(notification.date, now) }
            guard failures <= delays.count else { return nil }
            return lastAttempt.addingTimeInterval(delays[failures - 1])
        }
    }

    private(set) var pending: [Int: Pending] = [:]
    private var numberByUUID: [String: Int] = [:]
    private var count = 0
    /// The bytes of the journal read so far.
    private var length: UInt64 = 0
    /// The last bytes read, to tell on the next look that the journal is the one read.
    private var fingerprint: [UInt8] = []
    /// Where the attempts this deliverer appended (and applied already) start.
    private var own: Set<UInt64> = []

    /// Brings the queue up to date with the journal at `store`: committed lines (up to the
    /// snapshot's mark) without the lock, the rest under it, so no change that is still being
    /// written, and could be taken back, is ever delivered.
    mutating func refresh(_ store: StateStore) throws {
        let mark = try store.readSnapshot().outbox.journalLength
        let path = store.location.notificationsPath
        if !holdsSameJournal(path) { self = DeliveryQueue() }
        if length < mark { try read(path, upTo: mark) }
        try store.holdingLock {
            if !holdsSameJournal(path) { self = DeliveryQueue() }
            try read(path, upTo: nil)
        }
    }

    /// Forgets everything: the next `refresh` reads the journal from its start.
    mutating func reset() { self = DeliveryQueue() }

    /// Takes in an attempt this deliverer appended at `offset`.
    mutating func recorded(_ attempt: DeliveryAttempt, at offset: UInt64) {
        apply(attempt)
        own.insert(offset)
    }

    /// The notifications due by `now`, latest first (`popLast` gives the next to deliver).
    func due(at now: Date, delays: [TimeInterval], kinds: Set<ServerNotification.Kind>?)
        -> [(date: Date, number: Int)]
    {
        var due: [(date: Date, number: Int)] = []
        for entry in pending.values where kinds?.contains(entry.notification.kind) ?? true {
            if let date = entry.dueDate(delays: delays, now: now), date <= now { due.append((date, entry.number)) }
        }
        return due.sorted { ($0.date, $0.number) > ($1.date, $1.number) }
    }

    /// The notifications to post again now (`notifications resend`): those `uuids` names, or
    /// every one that failed at least once when it is nil. A UUID may be given by a prefix
    /// that names one notification only.
    /// - Returns: what to post, dated `now`, and the UUIDs that name no undelivered notification.
    func resendable(_ uuids: [String]?, at now: Date) -> (ready: [(date: Date, number: Int)], unknown: [String]) {
        guard let uuids else {
            let failed = pending.values.filter { $0.failures > 0 }.map(\.number).sorted(by: >)
            return (failed.map { (now, $0) }, [])
        }
        var ready: [(date: Date, number: Int)] = []
        var unknown: [String] = []
        for uuid in uuids {
            let matches = numberByUUID.filter { $0.key.hasPrefix(uuid.lowercased()) }
            if matches.count == 1, let number = matches.first?.value {
                if !ready.contains(where: { $0.number == number }) { ready.append((now, number)) }
            } else {
                unknown.append(uuid)
            }
        }
        return (ready.sorted { $0.number > $1.number }, unknown)
    }

    /// The earliest retry due after `now`.
    func nextRetry(after now: Date, delays: [TimeInterval], kinds: Set<ServerNotification.Kind>?) -> Date? {
        pending.values.lazy.filter { $0.failures > 0 && (kinds?.contains($0.notification.kind) ?? true) }
            .compactMap { $0.dueDate(delays: delays, now: now) }.filter { $0 > now }.min()
    }

    private mutating func apply(_ attempt: DeliveryAttempt) {
        guard let number = numberByUUID[attempt.uuid] else { return }
        if attempt.result == .success {
            pending[number] = nil
            numberByUUID[attempt.uuid] = nil
        } else {
            pending[number]?.failures += 1
            pending[number]?.lastAttempt = attempt.date
        }
    }

    /// Whether the journal still has the bytes this queue read last where it read them: a
    /// `reset` that erased the history since gives a new file.
    private func holdsSameJournal(_ path: String) -> Bool {
        guard length > 0 else { return true }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: fingerprint.count)
        let count = bytes.withUnsafeMutableBytes {
            pread(fd, $0.baseAddress, $0.count, off_t(length) - off_t($0.count))
        }
        return count == bytes.count && bytes == fingerprint
    }

    /// Takes in the complete lines from `length` on, up to byte `limit` if given.
    private mutating func read(_ path: String, upTo limit: UInt64?) throws {
        let file: JournalFile?
        do {
            file = try JournalFile(path: path)
        } catch {
            throw StateError.unreadable(path: path, reason: error.reason)
        }
        guard let file else { return }
        do {
            try file.forEachLine(from: length) { (line, end) throws(LineStop) in
                if let limit, end > limit { throw .limit }
                let start = end - UInt64(line.count) - 1
                fingerprint = Array(line.suffix(63)) + [0x0A]
                length = end
                guard !line.isEmpty, own.remove(start) == nil else { return }
                try take(line, at: start, path: path)
            }
        } catch {
            switch error {
            case .io(let failure): throw StateError.unreadable(path: path, reason: failure.reason)
            case .missing, .body(.limit): break
            case .body(.corrupt(let error)): throw error
            }
        }
    }

    private enum LineStop: Error {
        case limit
        case corrupt(StateError)
    }

    private mutating func take(_ line: UnsafeBufferPointer<UInt8>, at start: UInt64, path: String) throws(LineStop) {
        let record: Outbox.Record
        do {
            record = try Outbox.Record(try Reader(try JSONValue.parse(Array(line)), at: ""))
        } catch let error as JSONValue.SyntaxError {
            throw .corrupt(.corrupt(path: path, detail: "the line at byte \(start) is not JSON: \(error.message)"))
        } catch {
            let detail = (error as? Reader.Failure)?.message ?? "\(error)"
            throw .corrupt(.corrupt(path: path, detail: "the line at byte \(start) is not a notification: \(detail)"))
        }
        switch record {
        case .notification(let notification):
            count += 1
            let place = StateStore.NotificationLine(
                offset: start, length: line.count, checksum: StateStore.checksum(line))
            pending[count] = Pending(notification: notification, number: count, line: place)
            numberByUUID[notification.uuid] = count
        case .attempt(let attempt):
            apply(attempt)
        }
    }
}
