import Foundation
import IAPSimCrypto
import IAPSimHTTP
import Testing

@testable import IAPSimKit

/// `serve`'s OCSP responder: good for the current set, revoked for a set `certs rotate`
/// replaced, unknown for a serial number its issuers never issued, unauthorized for another
/// issuer — each answer signed by the certificate's own issuer.
@Suite struct OCSPResponderTests {
    static let real = Date(timeIntervalSince1970: 1_800_000_000)
    static let simulated = Date(timeIntervalSince1970: 1_900_000_000)

    static func responder(_ directory: String) -> OCSPResponder {
        OCSPResponder(directory: directory, realNow: { real }, simulatedNow: { simulated })
    }

    static func ask(
        _ responder: OCSPResponder, about certificate: X509Certificate, issuer: X509Certificate,
        hash: OCSPCertID.HashAlgorithm = .sha256
    ) throws -> OCSPResponse {
        let request = OCSPRequest(certIDs: [
            try OCSPCertID(certificate: certificate, issuer: issuer, hashAlgorithm: hash)
        ])
        return try OCSPResponse(derRepresentation: responder.answer(request.derRepresentation).body)
    }

    @Test func theSigningChainNamesTheResponderButTheRootAndReceiptChainDoNot() throws {
        let directory = Support.temporaryDirectory()
        let identity = try SigningIdentity.create(
            in: directory, replacing: false, lockTimeout: 5, receiptChain: { try ReceiptSigningChain.generate() })
        for certificate in [identity.chain.intermediate, identity.chain.leaf] {
            #expect(try certificate.extension(.authorityInformationAccess)?.ocspURLs() == [OCSPResponder.url])
        }
        #expect(identity.chain.root.extension(.authorityInformationAccess) == nil)
        let receipt = try #require(identity.receiptChain)
        #expect(
            [receipt.root, receipt.intermediate, receipt.leaf].allSatisfy {
                $0.extension(.authorityInformationAccess) == nil
            })
    }

    @Test(arguments: [OCSPCertID.HashAlgorithm.sha1, .sha256])
    func theCurrentSetIsGoodSignedByEachIssuer(hash: OCSPCertID.HashAlgorithm) throws {
        let directory = Support.temporaryDirectory()
        let chain = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: 5).chain
        let responder = Self.responder(directory)
        for (certificate, issuer, key) in [
            (chain.leaf, chain.intermediate, chain.intermediateKey), (chain.intermediate, chain.root, chain.rootKey),
        ] {
            let response = try Self.ask(responder, about: certificate, issuer: issuer, hash: hash)
            #expect(response.status == .successful)
            #expect(response.isSignatureValid(key: key.publicKey))
            #expect(response.responderKeyHash == SHA1.hash(key.publicKey.x963Representation))
            let single = try #require(response.responses.first)
            #expect(single.status == .good)
            #expect(single.certID.names(certificate, issuedBy: issuer))
            // Current on either clock: a verifier under `clock exec` and one on the real clock.
            #expect(single.thisUpdate <= Self.real && single.thisUpdate > Self.real.addingTimeInterval(-3600))
            #expect(try #require(single.nextUpdate) > Self.simulated)
            #expect(response.producedAt == Self.simulated)
        }
    }

    @Test func aReplacedSetIsRevokedFromTheRotateAndTheNewOneGood() throws {
        let directory = Support.temporaryDirectory()
        let old = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: 5).chain
        let rotatedAt = Date(timeIntervalSince1970: 1_850_000_000)
        let new = try SigningIdentity.create(in: directory, replacing: true, lockTimeout: 5, replacedAt: rotatedAt)
            .chain
        let responder = Self.responder(directory)
        for (certificate, issuer, key) in [
            (old.leaf, old.intermediate, old.intermediateKey), (old.intermediate, old.root, old.rootKey),
        ] {
            let response = try Self.ask(responder, about: certificate, issuer: issuer)
            #expect(response.responses.first?.status == .revoked(at: rotatedAt, reason: .superseded))
            #expect(response.isSignatureValid(key: key.publicKey))
        }
        #expect(try Self.ask(responder, about: new.leaf, issuer: new.intermediate).responses.first?.status == .good)
        // A second rotate keeps the first record, and revokes the second set too.
        _ = try SigningIdentity.create(in: directory, replacing: true, lockTimeout: 5, replacedAt: rotatedAt)
        #expect(try Self.ask(responder, about: new.leaf, issuer: new.intermediate).responses.first?.status != .good)
        #expect(try Self.ask(responder, about: old.leaf, issuer: old.intermediate).responses.first?.status != .good)
    }

    @Test func aRecordOfTheCurrentSetLeavesItGood() throws {
        // A rotate killed after its record, before its switch, left the current set recorded.
        let directory = Support.temporaryDirectory()
        let chain = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: 5).chain
        try ReplacedCertificateSet.record(chain, at: Self.real, in: directory)
        #expect(
            try Self.ask(Self.responder(directory), about: chain.leaf, issuer: chain.intermediate).responses.first?
                .status == .good)
    }

    @Test func otherSerialsAreUnknownAndOtherIssuersUnauthorized() throws {
        let directory = Support.temporaryDirectory()
        let chain = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: 5).chain
        let stranger = try TestCertificateChain.generate()
        let responder = Self.responder(directory)
        // The leaf of another chain, named as if our intermediate had issued it.
        let unknown = try Self.ask(responder, about: stranger.leaf, issuer: chain.intermediate)
        #expect(unknown.status == .successful && unknown.responses.first?.status == .unknown)
        let foreign = try Self.ask(responder, about: stranger.leaf, issuer: stranger.intermediate)
        #expect(foreign.status == .unauthorized)
        #expect(try OCSPResponse(derRepresentation: responder.answer([0x30, 0x00]).body).status == .malformedRequest)
    }

    @Test func getCarriesTheRequestInTheURLAndPostInTheBody() throws {
        let directory = Support.temporaryDirectory()
        let chain = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: 5).chain
        let responder = Self.responder(directory)
        let der = OCSPRequest(certIDs: [try OCSPCertID(certificate: chain.leaf, issuer: chain.intermediate)])
            .derRepresentation
        let encoded = Base64.encode(der).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let get = responder.respond(to: try HTTPRequest(method: "GET", target: "http://ocsp.iapsim.test/" + encoded))
        let post = responder.respond(to: try HTTPRequest(method: "POST", target: "http://ocsp.iapsim.test/", body: der))
        for (response, reason) in [get, post] {
            #expect(response.status == .ok && reason == "OCSP good")
            #expect(response.headers["Content-Type"] == "application/ocsp-response")
            #expect(try OCSPResponse(derRepresentation: response.body).responses.first?.status == .good)
        }
        let put = responder.respond(to: try HTTPRequest(method: "PUT", target: "http://ocsp.iapsim.test/"))
        #expect(put.response.status == .methodNotAllowed)
    }
}
