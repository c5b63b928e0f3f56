import Foundation
import Testing

@testable import IAPSimCrypto

/// PKCS #7 SignedData against openssl: what `sign` writes `openssl cms -verify` accepts, and
/// what `openssl cms -sign` writes (BER, indefinite lengths) is read and verified here.
@Suite("CMSSignedData")
struct CMSSignedDataTests {
    static let chain: CertificateChain = {
        var generator = SeededGenerator(seed: 0xC_0575)
        return try! CertificateChain.generate(using: &generator)
    }()

    @Test func signedContainerReadsBackAndVerifies() throws {
        let content = Array("the payload".utf8)
        let der = try CMSSignedData.sign(
            content: content, signer: Self.chain.leaf, key: Self.chain.leafKey,
            certificates: Self.chain.certificatesLeafFirst)
        let read = try CMSSignedData(derRepresentation: der)
        #expect(read.content == content && read.contentType == CMSSignedData.dataType)
        #expect(read.certificates.count == 3 && read.signerCertificate == Self.chain.leaf)
        #expect(read.signedAttributes == nil && read.isSignatureValid)
        var altered = der
        let at = try #require(altered.indices.first { altered[$0...].starts(with: content) })
        altered[at] ^= 0x20
        #expect(try CMSSignedData(derRepresentation: altered).isSignatureValid == false)
    }

    @Test func opensslVerifiesWhatIsSigned() throws {
        let content = Array("receipt payload \u{1F4B0}".utf8)
        let der = try CMSSignedData.sign(
            content: content, signer: Self.chain.leaf, key: Self.chain.leafKey,
            certificates: Self.chain.certificatesLeafFirst)
        try withTemporaryDirectory { directory in
            try directory.write(der, to: "signed.der")
            try directory.write(Self.chain.root.pemRepresentation, to: "root.pem")
            let result = try OpenSSL.run(
                [
                    "cms", "-verify", "-inform", "DER", "-in", "signed.der", "-CAfile", "root.pem", "-binary",
                    "-purpose", "any",
                ], in: directory)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(Array(result.standardOutput) == content)
        }
    }

    @Test func readsWhatOpenSSLSigns() throws {
        try withTemporaryDirectory { directory in
            let content = Array((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try directory.write(content, to: "content.bin")
            try directory.write(Self.chain.leaf.pemRepresentation, to: "leaf.pem")
            try directory.write(Self.chain.leafKey.pemRepresentation, to: "leaf.key")
            try directory.write(Self.chain.intermediate.pemRepresentation, to: "intermediate.pem")
            for attributes in [["-noattr"], []] {
                let result = try OpenSSL.run(
                    [
                        "cms", "-sign", "-nodetach", "-binary", "-md", "sha256", "-in", "content.bin", "-signer",
                        "leaf.pem", "-inkey", "leaf.key", "-certfile", "intermediate.pem", "-outform", "DER",
                        "-stream",
                    ] + attributes, in: directory)
                #expect(result.status == 0, "\(result.standardError)")
                let bytes = Array(result.standardOutput)
                // openssl streams BER (indefinite lengths): read through the normalizer.
                let der = try BERNormalizer.definiteLengths(bytes)
                let read = try CMSSignedData(derRepresentation: der)
                #expect(read.content == content)
                #expect(read.isSignatureValid, "signed attributes: \(attributes.isEmpty)")
                #expect((read.signedAttributes != nil) == attributes.isEmpty)
            }
        }
    }

    @Test func berNormalizerRefusesWhatIsNotBER() {
        #expect(throws: CryptoError.self) { try BERNormalizer.definiteLengths([0x30, 0x80, 0x02, 0x01]) }
        #expect(throws: CryptoError.self) { try BERNormalizer.definiteLengths([0x04, 0x80, 0x00, 0x00]) }
        #expect(throws: CryptoError.self) { try BERNormalizer.definiteLengths([0x30, 0x03, 0x02, 0x01, 0x00, 0x00]) }
        #expect(throws: CryptoError.self) {
            try BERNormalizer.definiteLengths(Array(repeating: 0x30, count: 100) + [0x80])
        }
        #expect(throws: CryptoError.self) {
            try BERNormalizer.definiteLengths([0x24, 0x80, 0x02, 0x01, 0x00, 0x00, 0x00])
        }
        #expect(
            (try? BERNormalizer.definiteLengths([0x24, 0x80, 0x04, 0x01, 0x41, 0x04, 0x01, 0x42, 0x00, 0x00])) == [
                0x04, 0x02, 0x41, 0x42,
            ])
    }
}
