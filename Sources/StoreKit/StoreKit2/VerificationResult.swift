import Foundation

/// StoreKit 2's `VerificationResult`: a signed item and whether its JWS verified. Here the
/// JWS is iapsim's, signed by the state folder's test chain, and it is really checked
/// against that chain's root (`JWSInspection`); a session that simulates a Verification
/// error (`SKTestSession.setSimulatedError(_:forAPI: .verification)`) hands everything over
/// `unverified` with it, as Apple's test environment does.
@frozen public enum VerificationResult<SignedType> {
    case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
    case verified(SignedType)

    /// Why an item did not verify (Apple, "VerificationResult.VerificationError").
    public enum VerificationError: Error, Equatable, Hashable, Sendable, LocalizedError {
        case revokedCertificate
        case invalidCertificateChain
        case invalidDeviceVerification
        case invalidEncoding
        case invalidSignature
        case missingRequiredProperties

        public var errorDescription: String? {
            switch self {
            case .revokedCertificate: "The certificate that signed the data was revoked."
            case .invalidCertificateChain: "The certificate chain of the signed data is not valid."
            case .invalidDeviceVerification: "The device verification does not match this device."
            case .invalidEncoding: "The signed data is not encoded correctly."
            case .invalidSignature: "The signature does not verify."
            case .missingRequiredProperties: "The signed data lacks required properties."
            }
        }
    }

    /// The item, if it verified.
    /// - Throws: the `VerificationError` when it did not.
    public var payloadValue: SignedType {
        get throws {
            switch self {
            case .verified(let value): return value
            case .unverified(_, let error): throw error
            }
        }
    }

    /// The item, verified or not.
    public var unsafePayloadValue: SignedType {
        switch self {
        case .verified(let value), .unverified(let value, _): value
        }
    }
}

extension VerificationResult: Sendable where SignedType: Sendable {}
extension VerificationResult: Equatable where SignedType: Equatable {}
extension VerificationResult: Hashable where SignedType: Hashable {}

/// An item StoreKit receives as a JWS: a transaction, renewal info, the app transaction.
public protocol _StoreKitSignedItem {
    var _jws: String { get }
    var signedDate: Date { get }
}

extension VerificationResult where SignedType: _StoreKitSignedItem {
    /// The compact JWS the item came as.
    public var jwsRepresentation: String { unsafePayloadValue._jws }
    public var signedDate: Date { unsafePayloadValue.signedDate }

    private func segment(_ index: Int) -> Data {
        let parts = jwsRepresentation.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return Data() }
        return Data(base64URL: String(parts[index])) ?? Data()
    }

    public var headerData: Data { segment(0) }
    public var payloadData: Data { segment(1) }
    public var signatureData: Data { segment(2) }
    /// What the signature covers: the header and payload segments joined by a dot.
    public var signedData: Data {
        Data(
            jwsRepresentation.split(separator: ".", omittingEmptySubsequences: false).prefix(2)
                .joined(separator: ".").utf8)
    }
    /// The device this runs on is none Apple knows: no device verification applies.
    public var deviceVerification: Data { Data() }
    public var deviceVerificationNonce: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

extension Data {
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}
