import Foundation
import IAPSimCrypto
import IAPSimJSON
import IAPSimKit

/// Signs transactions as the App Store hands them to the app, and verifies each JWS against
/// the state folder's test root as `VerificationResult` does on a device.
enum Verifier {
    /// Each of `transactions`, signed now and checked.
    static func results(_ transactions: [IAPSimKit.Transaction]) throws -> [VerificationResult<Transaction>] {
        guard !transactions.isEmpty else { return [] }
        let runtime = StoreRuntime.shared
        let (signer, simulated, signed) = try runtime.withStore { _, session in
            let signer = try runtime.signer()
            let simulated = try session.settings().simulatedError(.verificationError)
            return (signer, simulated, try session.signedTransactions(transactions, signer: signer))
        }
        return transactions.compactMap { transaction -> VerificationResult<Transaction>? in
            guard let jws = signed[transaction.id] else { return nil }
            let (payload, error): (JSONValue, VerificationResult<Transaction>.VerificationError?) = check(
                jws, identity: signer.identity)
            let value = Transaction(transaction, payload: payload, jws: jws)
            if let simulated { return .unverified(value, verificationError(simulated)) }
            if let error { return .unverified(value, error) }
            return .verified(value)
        }
    }

    /// `transaction` signed in the context the step that made it read (a purchase), with no
    /// second read of the state.
    static func result(
        _ transaction: IAPSimKit.Transaction, context: SigningContext, signer: StoreSession.Signer
    ) -> VerificationResult<Transaction> {
        let signed = SignedPayloads.transaction(transaction, context: context)
        let jws = signer.identity.sign(signed, environment: context.environment)
        let (payload, error): (JSONValue, VerificationResult<Transaction>.VerificationError?) = check(
            jws, identity: signer.identity, signing: signed)
        let value = Transaction(transaction, payload: payload, jws: jws)
        return error.map { .unverified(value, $0) } ?? .verified(value)
    }

    static func result(_ transaction: IAPSimKit.Transaction) throws -> VerificationResult<Transaction>? {
        try results([transaction]).first
    }

    /// The leaf keys of certificate chains already found to lead to the trusted root, by the
    /// JWS header that carries them: the same chain signs every item, so it is checked once
    /// and each later item only for its own signature.
    private static let trustedHeaders = TrustedHeaders()

    final class TrustedHeaders: @unchecked Sendable {
        private let lock = NSLock()
        private var keys: [Substring: (root: [UInt8], key: P256PublicKey)] = [:]
        func key(_ header: Substring, root: [UInt8]) -> P256PublicKey? {
            lock.withLock { keys[header].flatMap { $0.root == root ? $0.key : nil } }
        }
        func trust(_ header: Substring, root: [UInt8], key: P256PublicKey) {
            lock.withLock {
                if keys.count > 16 { keys.removeAll() }
                keys[header] = (root, key)
            }
        }
    }

    /// The payload of `jws`, and why it does not verify against `identity`'s root, if it does not.
    /// - Parameter signed: the payload `jws` was just signed with, when the caller signed it: once
    ///   its header is trusted, the signature is still checked, but the payload is not decoded
    ///   again from the bytes made of it (an eighth of a `purchase()`).
    static func check<T>(_ jws: String, identity: SigningIdentity, signing signed: JSONValue? = nil) -> (
        JSONValue, VerificationResult<T>.VerificationError?
    ) {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        let root = identity.chain.root.derRepresentation
        if parts.count == 3, let key = trustedHeaders.key(parts[0], root: root),
            let payload = signed ?? (try? JSONValue.parse(Base64URL.decode(parts[1]))), payload.objectValue != nil
        {
            let valid = ES256.isValidSignature(parts[2], signingInput: parts[0] + "." + parts[1], publicKey: key)
            return (payload, valid ? nil : .invalidSignature)
        }
        guard let inspection = try? JWSInspection.inspect(jws, trusting: identity) else {
            return (.object([]), .invalidEncoding)
        }
        if !inspection.signatureIsValid { return (inspection.payload, .invalidSignature) }
        if case .untrusted = inspection.chain { return (inspection.payload, .invalidCertificateChain) }
        if parts.count == 3, case .trusted = inspection.chain,
            let leaf = inspection.header["x5c"]?.arrayValue?.first?.stringValue,
            let der = try? Base64.decode(leaf), let certificate = try? X509Certificate(derRepresentation: der),
            let key = try? certificate.publicKey()
        {
            trustedHeaders.trust(parts[0], root: root, key: key)
        }
        return (inspection.payload, nil)
    }

    /// The `VerificationError` a simulated error names.
    static func verificationError<T>(_ error: SimulatedError) -> VerificationResult<T>.VerificationError {
        switch error.name {
        case "revokedCertificate": .revokedCertificate
        case "invalidCertificateChain": .invalidCertificateChain
        case "invalidDeviceVerification": .invalidDeviceVerification
        case "invalidEncoding": .invalidEncoding
        case "missingRequiredProperties": .missingRequiredProperties
        default: .invalidSignature
        }
    }
}
