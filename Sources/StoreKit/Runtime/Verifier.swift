import Foundation
import IAPSimJSON
import IAPSimKit

/// Signs transactions as the App Store hands them to the app, and verifies each JWS against
/// the state folder's test root as `VerificationResult` does on a device.
enum Verifier {
    /// Each of `transactions`, signed now and checked.
    static func results(_ transactions: [IAPSimKit.Transaction]) throws -> [VerificationResult<Transaction>] {
        guard !transactions.isEmpty else { return [] }
        let runtime = StoreRuntime.shared
        let (_, session) = try runtime.open()
        let signer = try runtime.signer()
        let simulated = try session.settings().simulatedError(.verificationError)
        let signed = try session.signedTransactions(transactions, signer: signer)
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

    static func result(_ transaction: IAPSimKit.Transaction) throws -> VerificationResult<Transaction>? {
        try results([transaction]).first
    }

    /// The payload of `jws`, and why it does not verify against `identity`'s root, if it does not.
    static func check<T>(_ jws: String, identity: SigningIdentity) -> (
        JSONValue, VerificationResult<T>.VerificationError?
    ) {
        guard let inspection = try? JWSInspection.inspect(jws, trusting: identity) else {
            return (.object([]), .invalidEncoding)
        }
        if !inspection.signatureIsValid { return (inspection.payload, .invalidSignature) }
        if case .untrusted = inspection.chain { return (inspection.payload, .invalidCertificateChain) }
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
