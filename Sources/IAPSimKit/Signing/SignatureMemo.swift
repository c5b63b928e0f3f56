import Foundation
import IAPSimJSON

/// The compact JWS of payloads signed lately, by their bytes: ES256 here signs with RFC 6979's
/// deterministic nonce, so the same payload under the same key and header always gives the
/// same bytes, and a payload signed again is answered from here. `serve` signs the same
/// transaction for every request within a millisecond of the simulated clock (its
/// `signedDate`), and every request while the clock is frozen: the signature, a third of a
/// request's time, is then made once.
///
/// Bounded: at most `limit` entries, each payload at most `payloadLimit` bytes; forgotten all at
/// once when full, as the state cache forgets looked-up transactions.
final class SignatureMemo: @unchecked Sendable {
    private struct Key: Hashable {
        var xcode: Bool
        var payload: [UInt8]

        /// The bytes hashed as one buffer: a byte at a time costs as much as the look-up saves.
        func hash(into hasher: inout Hasher) {
            hasher.combine(xcode)
            payload.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private let lock = NSLock()
    private var signed: [Key: String] = [:]
    private let limit: Int
    private let payloadLimit: Int

    init(limit: Int = 64, payloadLimit: Int = 16 * 1024) {
        self.limit = limit
        self.payloadLimit = payloadLimit
    }

    /// The JWS of `payload`, from the memo or made by `sign` (outside the lock: two threads
    /// signing the same new payload at once both sign it, and agree).
    func jws(of payload: [UInt8], xcode: Bool, sign: () -> String) -> String {
        guard payload.count <= payloadLimit else { return sign() }
        let key = Key(xcode: xcode, payload: payload)
        if let known = lock.withLock({ signed[key] }) { return known }
        let made = sign()
        lock.withLock {
            if signed.count >= limit { signed.removeAll(keepingCapacity: true) }
            signed[key] = made
        }
        return made
    }

    /// How many payloads are remembered: tests check the bound with it.
    var count: Int { lock.withLock { signed.count } }
}

/// Signed transactions by the transaction and the context they were signed in, so a payload
/// signed again is not even built: `serve` answering Get Transaction Info built and encoded
/// the same JWSTransaction payload for every request within a simulated millisecond (every
/// request while the clock is frozen), a tenth of its time, only to find the signature in
/// `SignatureMemo`. The payload is a function of the two (`SignedPayloads.transaction`), and
/// the memo belongs to one identity, so what it answers is what signing again would give.
///
/// Bounded as `SignatureMemo` is: at most `limit` entries, forgotten all at once when full.
final class SignedTransactionMemo: @unchecked Sendable {
    private struct Key: Hashable {
        var transaction: Transaction
        var context: SigningContext

        /// The identifier and the signing date tell entries apart; equality compares the rest.
        func hash(into hasher: inout Hasher) {
            hasher.combine(transaction.id)
            hasher.combine(context.signedDate)
        }
    }

    private let lock = NSLock()
    private var signed: [Key: (jws: String, payload: JSONValue)] = [:]
    private let limit: Int

    init(limit: Int = 64) {
        self.limit = limit
    }

    /// The JWS and payload of `transaction` signed in `context`, from the memo or made by
    /// `sign` (outside the lock).
    func signed(
        _ transaction: Transaction, context: SigningContext, sign: () -> (jws: String, payload: JSONValue)
    ) -> (jws: String, payload: JSONValue) {
        let key = Key(transaction: transaction, context: context)
        if let known = lock.withLock({ signed[key] }) { return known }
        let made = sign()
        lock.withLock {
            if signed.count >= limit { signed.removeAll(keepingCapacity: true) }
            signed[key] = made
        }
        return made
    }

    /// How many transactions are remembered: tests check the bound with it.
    var count: Int { lock.withLock { signed.count } }
}
