import Foundation

/// Why signed data could not be made or read.
public enum SigningError: Error, Equatable, Sendable {
    /// A file of the test certificates cannot be used; it is left as it is.
    case corruptIdentity(path: String, detail: String)
    /// A receipt was to be signed with an identity read before its set had an RSA receipt chain.
    case noReceiptChain(directory: String)
    /// `iapsim jws decode` was given something that is not a compact JWS.
    case malformedJWS(detail: String)
    /// `iapsim jws decode` was given more than `limit` bytes (`JWSInspection.maximumLength`).
    case jwsTooLarge(limit: Int)
}

extension SigningError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .corruptIdentity(let path, let detail):
            "\(path): not a usable iapsim test certificate (\(detail)); 'iapsim certs rotate' makes a new chain"
        case .noReceiptChain(let directory):
            "\(directory) has no RSA receipt chain yet; 'iapsim receipt' or 'iapsim certs' adds one"
        case .malformedJWS(let detail):
            "not a compact JWS: \(detail)"
        case .jwsTooLarge(let limit):
            "the JWS is longer than \(limit) bytes; signed data from the App Store is a few kilobytes"
        }
    }
}
