import Foundation

/// Why a receipt could not be read or verified.
public enum ReceiptError: Error, Equatable, Sendable {
    /// Not a PKCS #7 container of a receipt payload: the detail says where it broke.
    case malformed(String)
    /// The container's signature does not verify under its signer's certificate.
    case badSignature(String)
}

extension ReceiptError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .malformed(let detail): "not an app receipt: \(detail)"
        case .badSignature(let detail): "the receipt's signature does not verify: \(detail)"
        }
    }
}
