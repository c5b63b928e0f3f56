import Foundation
import IAPSimJSON

/// Values made lately, by a key: at most `limit` entries, forgotten all at once when full, as the
/// state cache forgets looked-up transactions. What is kept here is a function of its key, so
/// a value is made once: a thread asking for a key another thread is making waits for that
/// value (at most `patience` seconds, then makes it too, and they agree) rather than making it
/// again. `serve` under load needs that: every request within a millisecond of a running
/// simulated clock asks for the same new signature, and before the first one is made (a
/// signature under 32 connections on two cores takes longer than a millisecond of wall time)
/// every one of them signed it, so nearly every request paid for a signature. The one place
/// for the bound and the locking rule of the signing memos below.
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
        let made = make()
        condition.lock()
        if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = made
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

/// A payload to sign, by its bytes: ES256 here signs with RFC 6979's deterministic nonce, so
/// the same payload under the same key and header always gives the same bytes, and a payload
/// signed again is answered from the memo (`SigningIdentity.memo`). `serve` signs the same
/// payload for every request within a millisecond of the simulated clock (its `signedDate`),
/// and every request while the clock is frozen: the signature is then made once.
struct SignedPayloadKey: Hashable {
    /// Larger payloads are signed without the memo: hashing them costs more than it saves.
    static let payloadLimit = 16 * 1024

    var xcode: Bool
    var payload: [UInt8]

    /// The bytes hashed as one buffer: a byte at a time costs as much as the look-up saves.
    func hash(into hasher: inout Hasher) {
        hasher.combine(xcode)
        payload.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// A transaction and the context it was signed in, so a transaction signed again is not even
/// built (`SigningIdentity.transactionMemo`): `serve` answering Get Transaction Info built and
/// encoded the same JWSTransaction payload for every request within a simulated millisecond
/// (every request while the clock is frozen), a tenth of its time, only to find its signature
/// by the payload's bytes. The payload is a function of the two (`SignedPayloads.transaction`),
/// and the memo belongs to one identity, so what it answers is what signing again would give.
struct SignedTransactionKey: Hashable {
    var transaction: Transaction
    var context: SigningContext

    /// The signing date is kept in whole milliseconds, as the payload carries it
    /// (`SignedPayloads.milliseconds`): every request within a millisecond of a running clock
    /// signs the same payload, and finds it here.
    init(transaction: Transaction, context: SigningContext) {
        self.transaction = transaction
        var context = context
        context.signedDate = Date(
            timeIntervalSince1970: (context.signedDate.timeIntervalSince1970 * 1000).rounded() / 1000)
        self.context = context
    }

    /// The identifier and the signing date tell entries apart; equality compares the rest.
    func hash(into hasher: inout Hasher) {
        hasher.combine(transaction.id)
        hasher.combine(context.signedDate)
    }
}
