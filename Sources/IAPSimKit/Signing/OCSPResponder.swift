import Foundation
import IAPSimCrypto
import IAPSimHTTP

/// iapsim's OCSP responder (RFC 6960), for verifiers that keep online checks on (Apple's
/// `SignedDataVerifier` with `enable_online_checks`): the signing chain's intermediate and
/// leaf name `url` in their authorityInfoAccess, a name that resolves nowhere, and `serve`
/// answers requests for its host when a client uses serve's port as its HTTP proxy
/// (`HTTP_PROXY`). POST (`application/ocsp-request`) and GET (RFC 6960 appendix A, the
/// request in Base64 in the path) are answered.
///
/// Each CertID gets: `good` for the current set's intermediate and leaf, `revoked` (reason
/// superseded, from the rotate's date) for a set `iapsim certs rotate` replaced
/// (`ReplacedCertificateSet`), `unknown` for another serial number. The response is signed
/// by the certificates' issuer itself (root for the intermediate, intermediate for the leaf;
/// ecdsa-with-SHA256, responder named byKey), so no delegated responder certificate is needed.
/// A request naming no issuer of iapsim's is answered `unauthorized`.
///
/// The folder is read at each request, so a rotate is answered at once.
public struct OCSPResponder: Sendable {
    /// The responder's host name: `.test` (RFC 2606) never resolves on a real network.
    public static let host = "ocsp.iapsim.test"
    /// The URL the signing certificates name.
    public static let url = "http://ocsp.iapsim.test/"
    /// How far before now `thisUpdate` is dated, for clients whose clock lags a little.
    static let backdating: TimeInterval = 5 * 60
    /// How long after now a status stays current (`nextUpdate`).
    static let freshness: TimeInterval = 24 * 60 * 60

    /// The certs folder (`SigningIdentity.directory`).
    public let directory: String
    /// The real clock.
    public let realNow: @Sendable () -> Date
    /// The simulated clock, when the state has one.
    public let simulatedNow: @Sendable () -> Date?

    public init(
        directory: String, realNow: @escaping @Sendable () -> Date, simulatedNow: @escaping @Sendable () -> Date?
    ) {
        self.directory = directory
        self.realNow = realNow
        self.simulatedNow = simulatedNow
    }

    /// The HTTP answer to an OCSP request over HTTP, and a word for the server's log.
    public func respond(to request: HTTPRequest) -> (response: HTTPResponse, reason: String) {
        let der: [UInt8]
        switch request.method {
        case "POST":
            der = request.body
        case "GET":
            // The path is already percent-decoded; what follows the responder's "/" is Base64.
            guard let bytes = try? Base64.decode(request.path.drop(while: { $0 == "/" })) else {
                return (Self.http(OCSPResponse.unsuccessful(.malformedRequest)), "OCSP malformedRequest")
            }
            der = bytes
        default:
            var response = HTTPResponse.status(.methodNotAllowed)
            response.headers.add(name: "Allow", value: "GET, POST")
            return (response, "OCSP takes GET or POST")
        }
        let (body, reason) = answer(der)
        return (Self.http(body), reason)
    }

    /// The DER OCSPResponse to the DER OCSPRequest `der`, and a word for the log.
    public func answer(_ der: [UInt8]) -> (body: [UInt8], reason: String) {
        guard let request = try? OCSPRequest(derRepresentation: der) else {
            return (OCSPResponse.unsuccessful(.malformedRequest), "OCSP malformedRequest")
        }
        let authorities: [Authority]
        do {
            authorities = try Self.authorities(in: directory)
        } catch {
            return (OCSPResponse.unsuccessful(.internalError), "OCSP internalError: \(error)")
        }
        // One signature per response: the issuer of the first CertID that is ours signs, and
        // speaks for the certificates it issued; any other CertID is unknown to it.
        guard
            let signer = authorities.first(where: { authority in
                request.certIDs.contains { $0.isIssued(by: authority.issuer) }
            })
        else { return (OCSPResponse.unsuccessful(.unauthorized), "OCSP unauthorized") }
        let real = realNow()
        let simulated = simulatedNow() ?? real
        // Good on either clock: a verifier under `clock exec` reads the simulated one, another the real one.
        let thisUpdate = min(real, simulated).addingTimeInterval(-Self.backdating)
        let nextUpdate = max(real, simulated).addingTimeInterval(Self.freshness)
        let responses = request.certIDs.map { id in
            OCSPResponse.SingleResponse(
                certID: id, status: signer.status(of: id), thisUpdate: thisUpdate, nextUpdate: nextUpdate)
        }
        do {
            let body = try OCSPResponse.signed(
                responses, responder: signer.issuer, key: signer.key, producedAt: simulated, nonce: request.nonce)
            return (body, "OCSP " + responses.map { Self.word($0.status) }.joined(separator: ","))
        } catch {
            return (OCSPResponse.unsuccessful(.internalError), "OCSP internalError: \(error)")
        }
    }

    /// An issuer of iapsim's, its key, and what it says of the certificates it issued.
    struct Authority {
        let issuer: X509Certificate
        let key: P256PrivateKey
        let issued: [(certificate: X509Certificate, status: OCSPResponse.CertificateStatus)]

        func status(of id: OCSPCertID) -> OCSPResponse.CertificateStatus {
            // The first match wins, and the current set comes first: it is good whatever a
            // record of an unfinished rotate says.
            issued.first { id.names($0.certificate, issuedBy: issuer) }?.status ?? .unknown
        }
    }

    /// The current set's two issuers, then those of each replaced set, merged by issuer so
    /// a root that issued intermediates of several sets answers for each.
    static func authorities(in directory: String) throws -> [Authority] {
        typealias Entry = (certificate: X509Certificate, status: OCSPResponse.CertificateStatus)
        var signed: [(issuer: X509Certificate, key: P256PrivateKey, entry: Entry)] = []
        if let chain = try SigningIdentity.load(from: directory)?.chain {
            signed += [
                (chain.root, chain.rootKey, (chain.intermediate, .good)),
                (chain.intermediate, chain.intermediateKey, (chain.leaf, .good)),
            ]
        }
        for set in ReplacedCertificateSet.all(in: directory) {
            let status = OCSPResponse.CertificateStatus.revoked(at: set.replacedAt, reason: .superseded)
            signed += [
                (set.root, set.rootKey, (set.intermediate, status)),
                (set.intermediate, set.intermediateKey, (set.leaf, status)),
            ]
        }
        var authorities: [Authority] = []
        for (issuer, key, entry) in signed {
            if let index = authorities.firstIndex(where: { $0.issuer == issuer }) {
                authorities[index] = Authority(issuer: issuer, key: key, issued: authorities[index].issued + [entry])
            } else {
                authorities.append(Authority(issuer: issuer, key: key, issued: [entry]))
            }
        }
        return authorities
    }

    private static func word(_ status: OCSPResponse.CertificateStatus) -> String {
        switch status {
        case .good: "good"
        case .revoked: "revoked"
        case .unknown: "unknown"
        }
    }

    private static func http(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/ocsp-response"], body: body)
    }
}
