import Foundation
import IAPSimJSON

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
