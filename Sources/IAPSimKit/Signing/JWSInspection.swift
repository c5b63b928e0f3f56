import Foundation
import IAPSimCrypto
import IAPSimJSON

/// What a compact JWS says and whether it holds: its header and payload decoded, its
/// signature checked with the key of its first `x5c` certificate, and its certificate chain
/// checked against a signing identity's root, as Apple's `SignedDataVerifier` checks a
/// `Sandbox` or `Production` item (chain of three to the trusted root, the App Store marker
/// extensions on leaf and intermediate, ES256).
public struct JWSInspection: Sendable {
    public var header: JSONValue
    public var payload: JSONValue
    /// The signature verifies with the key of the first `x5c` certificate.
    public var signatureIsValid: Bool
    /// What the certificates are to the identity it was checked against.
    public var chain: ChainVerdict

    public enum ChainVerdict: Sendable, Equatable {
        /// Leaf → intermediate → this identity's root, with Apple's marker extensions.
        case trusted
        /// The identity's self-signed Xcode certificate.
        case xcode
        /// Not this identity's chain, and why.
        case untrusted(String)
    }

    /// Whether a verifier trusting this identity's root would accept the signature.
    public var verifies: Bool {
        guard signatureIsValid else { return false }
        if case .untrusted = chain { return false }
        return true
    }

    /// The longest JWS read, in bytes: 1 MiB, some seventy times a notification's signed
    /// payload. Anything longer is refused before any work: a 200 MB input took 22 s and
    /// 1.3 GB to reject.
    public static let maximumLength = 1 << 20

    /// Decodes and checks `jws` against `identity`.
    /// - Throws: `SigningError.malformedJWS` when it is not three base64url segments of JSON;
    ///   `.jwsTooLarge` when it is longer than `maximumLength` bytes.
    public static func inspect(_ jws: String, trusting identity: SigningIdentity?) throws(SigningError) -> JWSInspection
    {
        guard jws.utf8.count <= maximumLength else { throw .jwsTooLarge(limit: maximumLength) }
        let text = jws.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .malformedJWS(detail: "expected three segments separated by '.', found \(parts.count)")
        }
        func json(_ segment: Substring, _ name: String) throws(SigningError) -> JSONValue {
            do {
                let value = try JSONValue.parse(try Base64URL.decode(segment))
                guard value.objectValue != nil else {
                    throw SigningError.malformedJWS(detail: "the \(name) is not a JSON object")
                }
                return value
            } catch let error as SigningError {
                throw error
            } catch {
                throw .malformedJWS(detail: "the \(name) is not base64url-encoded JSON")
            }
        }
        let header = try json(parts[0], "header")
        let payload = try json(parts[1], "payload")
        guard header["alg"]?.stringValue == ES256.algorithm else {
            throw .malformedJWS(detail: "the header's alg is not ES256")
        }
        let certificates: [X509Certificate] = (header["x5c"]?.arrayValue ?? []).compactMap { entry in
            guard let text = entry.stringValue, let der = try? Base64.decode(text) else { return nil }
            return try? X509Certificate(derRepresentation: der)
        }
        let input = parts[0] + "." + parts[1]
        let signatureIsValid =
            certificates.first.flatMap { try? $0.publicKey() }.map {
                ES256.isValidSignature(parts[2], signingInput: input, publicKey: $0)
            } ?? false
        return JWSInspection(
            header: header, payload: payload, signatureIsValid: signatureIsValid,
            chain: verdict(certificates, declared: header["x5c"]?.arrayValue?.count ?? 0, identity: identity))
    }

    private static func verdict(_ certificates: [X509Certificate], declared: Int, identity: SigningIdentity?)
        -> ChainVerdict
    {
        guard let identity else { return .untrusted("no iapsim certificates to check against") }
        guard certificates.count == declared, declared > 0 else {
            return .untrusted("an x5c entry is not a certificate")
        }
        if certificates.count == 1 {
            return certificates[0] == identity.xcodeCertificate
                ? .xcode : .untrusted("one certificate, not this state's Xcode certificate")
        }
        guard certificates.count == 3 else { return .untrusted("x5c holds \(certificates.count) certificates, not 3") }
        let (leaf, intermediate, root) = (certificates[0], certificates[1], certificates[2])
        guard root == identity.chain.root else { return .untrusted("the root is not this state's iapsim root") }
        guard intermediate.isIssued(by: root), leaf.isIssued(by: intermediate) else {
            return .untrusted("the certificates do not chain to the root")
        }
        guard intermediate.extensions.contains(where: { $0.identifier == .appleWWDRIntermediateMarker }),
            leaf.extensions.contains(where: { $0.identifier == .appleStoreSigningMarker })
        else { return .untrusted("the App Store marker extensions are missing") }
        return .trusted
    }
}
