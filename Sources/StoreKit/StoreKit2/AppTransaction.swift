import Foundation
import IAPSimJSON
import IAPSimKit

/// StoreKit 2's `AppTransaction`: the signed record of the app's download, as `iapsim jws
/// app-transaction` signs it.
public struct AppTransaction: Equatable, Hashable, Sendable, _StoreKitSignedItem {
    public let bundleID: String
    public let appVersion: String
    public let originalAppVersion: String
    public let originalPurchaseDate: Date
    public let environment: AppStore.Environment
    public let appID: UInt64?
    public let appTransactionID: String
    public let signedDate: Date
    public let jsonRepresentation: Data
    public let _jws: String

    public var deviceVerification: Data { Data() }
    public var deviceVerificationNonce: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }

    init(payload: JSONValue, jws: String) {
        bundleID = payload["bundleId"]?.stringValue ?? ""
        appVersion = payload["applicationVersion"]?.stringValue ?? "1"
        originalAppVersion = payload["originalApplicationVersion"]?.stringValue ?? "1"
        originalPurchaseDate = payload["originalPurchaseDate"].flatMap(Transaction.date) ?? Date()
        environment = AppStore.Environment(rawValue: payload["receiptType"]?.stringValue ?? "Sandbox")
        if case .number(let text)? = payload["appAppleId"] { appID = UInt64(text) } else { appID = nil }
        appTransactionID = payload["appTransactionId"]?.stringValue ?? ""
        signedDate = payload["signedDate"].flatMap(Transaction.date) ?? Date()
        jsonRepresentation = Data(payload.bytes(compact: true))
        _jws = jws
    }

    public static func == (lhs: AppTransaction, rhs: AppTransaction) -> Bool { lhs._jws == rhs._jws }
    public func hash(into hasher: inout Hasher) { hasher.combine(_jws) }

    /// The app transaction, signed now and verified.
    /// - Throws: the simulated App Transaction error, if the session sets one.
    public static var shared: VerificationResult<AppTransaction> {
        get async throws { try await refresh() }
    }

    /// Asks the App Store for the app transaction again.
    public static func refresh() async throws -> VerificationResult<AppTransaction> {
        do {
            let runtime = StoreRuntime.shared
            let (signer, signed) = try runtime.withStore { _, session in
                let signer = try runtime.signer()
                return (signer, try session.appTransaction(signer: signer))
            }
            let (payload, error): (JSONValue, VerificationResult<AppTransaction>.VerificationError?) =
                Verifier.check(signed.jws, identity: signer.identity)
            let value = AppTransaction(payload: payload, jws: signed.jws)
            return error.map { .unverified(value, $0) } ?? .verified(value)
        } catch {
            throw StoreKit2Errors.map(error)
        }
    }
}
