import Foundation
import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

/// OCSP (RFC 6960) as a responder speaks it: CertIDs, requests, signed basic responses, and
/// the authorityInfoAccess extension that names the responder.
@Suite struct OCSPTests {
    static let chain: CertificateChain = {
        var generator = SeededGenerator(seed: 6960)
        return try! CertificateChain.generate(using: &generator)
    }()
    static let thisUpdate = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01
    static let nextUpdate = Date(timeIntervalSince1970: 1_893_542_400)

    @Test(arguments: [OCSPCertID.HashAlgorithm.sha1, .sha256])
    func aCertIDHashesTheIssuersNameAndKeyAndRoundTrips(hash: OCSPCertID.HashAlgorithm) throws {
        let chain = Self.chain
        let id = try OCSPCertID(certificate: chain.leaf, issuer: chain.intermediate, hashAlgorithm: hash)
        #expect(id.issuerNameHash == hash.hash(chain.intermediate.subjectBytes))
        #expect(id.issuerKeyHash == hash.hash(chain.intermediateKey.publicKey.x963Representation))
        #expect(id.serialNumber == chain.leaf.serialNumber)
        let parsed = try OCSPCertID(derRepresentation: id.derRepresentation)
        #expect(parsed == id)
        #expect(parsed.names(chain.leaf, issuedBy: chain.intermediate))
        #expect(!parsed.names(chain.intermediate, issuedBy: chain.root))
        #expect(!parsed.isIssued(by: chain.root))
    }

    @Test func aCertIDWithAnotherHashMatchesNoIssuer() throws {
        // id-md5 in place of id-sha1: parsed, but nothing this responder can compare.
        var writer = DERWriter()
        writer.writeSequence { id in
            id.writeSequence {
                $0.writeObjectIdentifier(ASN1ObjectIdentifier(dotted: "1.2.840.113549.2.5")!)
                $0.writeNull()
            }
            id.writeOctetString([UInt8](repeating: 1, count: 16))
            id.writeOctetString([UInt8](repeating: 2, count: 16))
            id.writeInteger(3)
        }
        let id = try OCSPCertID(derRepresentation: writer.bytes)
        #expect(id.hashAlgorithm == nil)
        #expect(!id.isIssued(by: Self.chain.intermediate))
    }

    @Test func aRequestRoundTripsWithItsNonce() throws {
        let chain = Self.chain
        let ids = [
            try OCSPCertID(certificate: chain.leaf, issuer: chain.intermediate),
            try OCSPCertID(certificate: chain.intermediate, issuer: chain.root, hashAlgorithm: .sha256),
        ]
        let request = OCSPRequest(certIDs: ids, nonce: [1, 2, 3, 4])
        let parsed = try OCSPRequest(derRepresentation: request.derRepresentation)
        #expect(parsed.certIDs == ids)
        #expect(parsed.nonce == [0x04, 0x04, 1, 2, 3, 4])
        #expect(try OCSPRequest(derRepresentation: OCSPRequest(certIDs: ids).derRepresentation).nonce == nil)
    }

    @Test(arguments: [[UInt8](), [0x30, 0x00], [0x30, 0x04, 0x30, 0x02, 0x30, 0x00], [0x05, 0x00]])
    func malformedRequestsAreRefused(bytes: [UInt8]) {
        #expect(throws: CryptoError.self) { try OCSPRequest(derRepresentation: bytes) }
    }

    @Test func aSignedResponseCarriesEachStatusAndVerifiesUnderTheIssuersKey() throws {
        let chain = Self.chain
        let good = try OCSPCertID(certificate: chain.leaf, issuer: chain.intermediate)
        let revokedAt = Date(timeIntervalSince1970: 1_893_000_000)
        let statuses: [OCSPResponse.CertificateStatus] = [
            .good, .revoked(at: revokedAt, reason: .superseded), .revoked(at: revokedAt, reason: nil), .unknown,
        ]
        let singles = statuses.map {
            OCSPResponse.SingleResponse(
                certID: good, status: $0, thisUpdate: Self.thisUpdate, nextUpdate: Self.nextUpdate)
        }
        let nonce: [UInt8] = [0x04, 0x02, 0xAB, 0xCD]
        let der = try OCSPResponse.signed(
            singles, responder: chain.intermediate, key: chain.intermediateKey, producedAt: Self.thisUpdate,
            nonce: nonce)
        let response = try OCSPResponse(derRepresentation: der)
        #expect(response.status == .successful)
        #expect(response.responses == singles)
        #expect(response.producedAt == Self.thisUpdate)
        #expect(response.nonce == nonce)
        #expect(response.responderKeyHash == SHA1.hash(chain.intermediateKey.publicKey.x963Representation))
        #expect(response.responderName == nil)
        #expect(response.isSignatureValid(key: chain.intermediateKey.publicKey))
        #expect(!response.isSignatureValid(key: chain.rootKey.publicKey))
        // RFC 6960 §4.2.2.1: every time is a GeneralizedTime, even in years UTCTime could hold.
        #expect(!containsUTCTime(response.tbsResponseData))
    }

    @Test func unsuccessfulResponsesAreTheStatusAlone() throws {
        #expect(OCSPResponse.unsuccessful(.unauthorized) == [0x30, 0x03, 0x0A, 0x01, 0x06])
        #expect(OCSPResponse.unsuccessful(.malformedRequest) == [0x30, 0x03, 0x0A, 0x01, 0x01])
        let parsed = try OCSPResponse(derRepresentation: OCSPResponse.unsuccessful(.unauthorized))
        #expect(parsed.status == .unauthorized && parsed.responses.isEmpty)
    }

    @Test func authorityInformationAccessNamesTheResponder() throws {
        let access = try X509Extension.authorityInformationAccess(ocspURLs: ["http://ocsp.example.test/"])
        #expect(!access.isCritical)
        #expect(access.identifier == .authorityInformationAccess)
        #expect(try access.ocspURLs() == ["http://ocsp.example.test/"])
        #expect(throws: CryptoError.self) { try X509Extension.authorityInformationAccess(ocspURLs: []) }
        #expect(throws: CryptoError.self) { try X509Extension.authorityInformationAccess(ocspURLs: ["a b"]) }
    }

    /// openssl builds the request, and judges the response: its CertID matching, the
    /// issuer's signature, the nonce and the validity window.
    @Test func opensslAcceptsTheResponseToItsOwnRequest() throws {
        _ = try External.executable(OpenSSL.path)
        let chain = Self.chain
        try withTemporaryDirectory { directory in
            try directory.write(chain.root.pemRepresentation, to: "root.pem")
            try directory.write(chain.intermediate.pemRepresentation, to: "intermediate.pem")
            try directory.write(chain.leaf.pemRepresentation, to: "leaf.pem")
            for hash in ["-sha1", "-sha256"] {
                let made = try OpenSSL.run(
                    ["ocsp", hash, "-issuer", "intermediate.pem", "-cert", "leaf.pem", "-reqout", "request.der"],
                    in: directory)
                #expect(made.status == 0, "\(made.standardError)")
                let request = try OCSPRequest(
                    derRepresentation: Array(try Data(contentsOf: directory.appendingPathComponent("request.der"))))
                #expect(request.nonce != nil)
                let id = try #require(request.certIDs.first)
                #expect(id.names(chain.leaf, issuedBy: chain.intermediate))
                let now = Date()
                let response = try OCSPResponse.signed(
                    [
                        .init(
                            certID: id, status: .good, thisUpdate: now.addingTimeInterval(-300),
                            nextUpdate: now.addingTimeInterval(3600))
                    ], responder: chain.intermediate, key: chain.intermediateKey, producedAt: now, nonce: request.nonce)
                try directory.write(response, to: "response.der")
                let judged = try OpenSSL.run(
                    [
                        "ocsp", "-reqin", "request.der", "-respin", "response.der", "-issuer", "intermediate.pem",
                        "-CAfile", "root.pem", "-resp_text",
                    ], in: directory)
                // With -reqin, openssl checks the response's nonce against the request's.
                #expect(judged.status == 0, "\(judged.standardError)")
                #expect(judged.standardError.contains("Response verify OK"), "\(judged.standardError)")
                #expect(!judged.standardError.contains("Nonce"), "\(judged.standardError)")
                #expect(judged.outputText.contains("Cert Status: good"), "\(judged.outputText)")
            }
        }
    }

    private func containsUTCTime(_ bytes: [UInt8]) -> Bool {
        // A UTCTime of this response would be 13 bytes ending in "Z" after the tag 0x17 0x0D.
        bytes.indices.dropLast(14).contains {
            bytes[$0] == DERTag.utcTime && bytes[$0 + 1] == 0x0D && bytes[$0 + 14] == 0x5A
        }
    }
}
