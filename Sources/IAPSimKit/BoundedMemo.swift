import Foundation

/// Values made lately, by a key: at most `limit` entries, forgotten all at once when full, as the
/// state cache forgets looked-up transactions. What is kept here is a function of its key, so
/// a value is made once: a thread asking for a key another thread is making waits for that
/// value (at most `patience` seconds, then makes it too, and they agree) rather than making it
/// again. `serve` under load needs that: every request within a millisecond of a running
/// simulated clock asks for the same new signature, and before the first one is made (a
/// signature under 32 connections on two cores takes longer than a millisecond of wall time)
/// every one of them signed it, so nearly every request paid for a signature. The one place
/// for the bound and the locking rule of the signing memos (`SignatureMemo.swift`) and of
/// `serve`'s answers (`AnswerKey`).
final class BoundedMemo<Key: Hashable, Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var entries: [Key: Value] = [:]
    /// Keys being made, outside the lock.
    private var making: Set<Key> = []
    private let limit: Int
    private let patience: TimeInterval

    init(limit: Int = 64, patience: TimeInterval = 1) {
        self.limit = limit
        self.patience = patience
    }

    /// The value for `key`, from the memo, from the thread making it, or made by `make`.
    func value(for key: Key, make: () -> Value) -> Value {
        value(for: key) { (make(), true) }
    }

    /// The same, for values `make` may decline to keep (`keep` false: an answer that is not a
    /// function of its key alone, such as an error). A thread waiting for it then makes its own.
    func value(for key: Key, make: () -> (value: Value, keep: Bool)) -> Value {
        condition.lock()
        if making.contains(key), entries[key] == nil {
            let deadline = Date(timeIntervalSinceNow: patience)
            while making.contains(key), entries[key] == nil, condition.wait(until: deadline) {}
        }
        if let known = entries[key] {
            condition.unlock()
            return known
        }
        making.insert(key)
        condition.unlock()
        let (made, keep) = make()
        condition.lock()
        if keep {
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = made
        }
        making.remove(key)
        condition.broadcast()
        condition.unlock()
        return made
    }

    /// How many values are remembered: tests check the bound with it.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return entries.count
    }
}
