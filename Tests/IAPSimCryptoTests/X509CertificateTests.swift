import Foundation
import Testing

@testable import IAPSimCrypto

@Suite("X.509 certificates")
struct X509CertificateTests {
    private func chain() throws -> CertificateChain {
        let keys = try (1...3).map { index in
            try P256PrivateKey(rawRepresentation: SHA256.hash(Array("chain key \(index)".utf8)))
        }
        return try CertificateChain(
            rootKey: keys[0], intermediateKey: keys[1], leafKey: keys[2],
            serialNumbers: ([0x01], [0x00, 0x80, 0x01], [0xFF] + [UInt8](repeating: 0xEE, count: 18)))
    }

    @Test("the chain has the requested fields, names, times and extensions")
    func structure() throws {
        let chain = try chain()
        #expect(chain.leaf.isIssued(by: chain.intermediate))
        #expect(chain.intermediate.isIssued(by: chain.root))
        #expect(chain.root.isIssued(by: chain.root))
        #expect(!chain.leaf.isIssued(by: chain.root))
        #expect(!chain.intermediate.isIssued(by: chain.leaf))

        for certificate in chain.certificatesLeafFirst {
            #expect(certificate.version == 3)
            #expect(certificate.signatureAlgorithm == .ecdsaWithSHA256)
            #expect(certificate.notBefore == Date(timeIntervalSince1970: 0))
            #expect(certificate.notAfter == Date(timeIntervalSince1970: 253_402_300_799))
            #expect(certificate.isValid(at: Date(timeIntervalSince1970: 16_725_225_600)))
            // notBefore as UTCTime, notAfter as GeneralizedTime, byte for byte.
            let der = certificate.derRepresentation
            #expect(der.firstRange(of: [0x17, 0x0D] + Array("700101000000Z".utf8)) != nil)
            #expect(der.firstRange(of: [0x18, 0x0F] + Array("99991231235959Z".utf8)) != nil)
            #expect(try X509Certificate(pemRepresentation: certificate.pemRepresentation) == certificate)
            #expect(try X509Certificate(derRepresentation: der) == certificate)
        }
        #expect(chain.root.serialNumber == [0x01])
        #expect(chain.intermediate.serialNumber == [0x80, 0x01])
        #expect(chain.leaf.serialNumber.count == 19)
        #expect(chain.leaf.derRepresentation.firstRange(of: [0x02, 0x14, 0x00, 0xFF, 0xEE]) != nil)

        #expect(try chain.root.subject().description == "CN=iapsim TEST ONLY Root CA, O=iapsim TEST ONLY")
        #expect(try chain.intermediate.issuer() == chain.root.subject())
        #expect(try chain.leaf.subject().value(of: .commonName) == "iapsim TEST ONLY Leaf")
        #expect(try chain.leaf.publicKey() == chain.leafKey.publicKey)

        let rootID = X509Extension.keyIdentifier(for: chain.rootKey.publicKey)
        let intermediateID = X509Extension.keyIdentifier(for: chain.intermediateKey.publicKey)
        #expect(rootID == Array(SHA256.hash(chain.rootKey.publicKey.x963Representation).prefix(20)))

        let root = chain.root
        #expect(root.extensions.map(\.identifier) == [.basicConstraints, .keyUsage, .subjectKeyIdentifier])
        #expect(root.extension(.basicConstraints)?.isCritical == true)
        #expect(try root.extension(.basicConstraints)?.basicConstraints() ?? (false, 9) == (true, nil))
        #expect(root.extension(.keyUsage)?.isCritical == true)
        #expect(root.extension(.keyUsage)?.value == [0x03, 0x02, 0x01, 0x06])
        #expect(try root.extension(.keyUsage)?.keyUsage() == [.keyCertSign, .cRLSign])
        #expect(try root.extension(.subjectKeyIdentifier)?.subjectKeyIdentifier() == rootID)

        let intermediate = chain.intermediate
        #expect(try intermediate.extension(.basicConstraints)?.basicConstraints() ?? (false, nil) == (true, 0))
        #expect(intermediate.extension(.basicConstraints)?.value == [0x30, 0x06, 0x01, 0x01, 0xFF, 0x02, 0x01, 0x00])
        #expect(try intermediate.extension(.authorityKeyIdentifier)?.authorityKeyIdentifier() == rootID)
        #expect(try intermediate.extension(.subjectKeyIdentifier)?.subjectKeyIdentifier() == intermediateID)
        let intermediateMarker = try #require(intermediate.extension(CertificateChain.intermediateMarker))
        #expect(!intermediateMarker.isCritical && intermediateMarker.value == [0x05, 0x00])

        let leaf = chain.leaf
        #expect(leaf.extension(.basicConstraints)?.value == [0x30, 0x00])
        #expect(leaf.extension(.basicConstraints)?.isCritical == true)
        #expect(leaf.extension(.keyUsage)?.value == [0x03, 0x02, 0x07, 0x80])
        #expect(try leaf.extension(.authorityKeyIdentifier)?.authorityKeyIdentifier() == intermediateID)
        let marker = try #require(leaf.extension(CertificateChain.leafMarker))
        #expect(!marker.isCritical && marker.value == [0x05, 0x00])
        // Criticality FALSE is omitted (DER default), so the marker's Extension is OID + OCTET
        // STRING; 2.999.2's first subidentifier, 2 × 40 + 999, takes two bytes.
        #expect(
            leaf.derRepresentation.firstRange(of: [0x30, 0x09, 0x06, 0x03, 0x88, 0x37, 0x02, 0x04, 0x02, 0x05, 0x00])
                != nil)
    }

    @Test("building the same chain twice gives identical bytes (RFC 6979 signatures)")
    func deterministic() throws {
        #expect(try chain().leaf.derRepresentation == chain().leaf.derRepresentation)
    }

    @Test("a modified TBS or signature fails verification; bad builder input throws")
    func tampering() throws {
        let chain = try chain()
        var bytes = chain.leaf.derRepresentation
        // Flip a bit inside the subject's common name (still valid DER, wrong signature).
        let range = try #require(bytes.firstRange(of: Array("Leaf".utf8)))
        bytes[range.lowerBound] ^= 0x20
        let modified = try X509Certificate(derRepresentation: bytes)
        #expect(!modified.isSignatureValid(issuerKey: chain.intermediateKey.publicKey))
        #expect(chain.leaf.isSignatureValid(issuerKey: chain.intermediateKey.publicKey))

        var builder = X509CertificateBuilder(
            serialNumber: [0x00], issuer: DistinguishedName(commonName: "a"),
            subject: DistinguishedName(commonName: "b"),
            notBefore: Date(timeIntervalSince1970: 0), notAfter: Date(timeIntervalSince1970: 1),
            subjectPublicKey: chain.leafKey.publicKey)
        #expect(throws: CryptoError.self) { try builder.sign(with: chain.rootKey) }
        builder.serialNumber = [UInt8](repeating: 0x7F, count: 21)
        #expect(throws: CryptoError.self) { try builder.sign(with: chain.rootKey) }
        builder.serialNumber = [0x80] + [UInt8](repeating: 0, count: 19)
        #expect(throws: CryptoError.self) { try builder.sign(with: chain.rootKey) }
        builder.serialNumber = [0x7F] + [UInt8](repeating: 0, count: 19)
        _ = try builder.sign(with: chain.rootKey)
        builder.extensions = [.marker(CertificateChain.leafMarker), .marker(CertificateChain.leafMarker)]
        #expect(throws: CryptoError.self) { try builder.sign(with: chain.rootKey) }
        builder.extensions = []
        builder.notAfter = Date(timeIntervalSince1970: 253_402_300_800)
        #expect(throws: CryptoError.self) { try builder.sign(with: chain.rootKey) }
        builder.notAfter = Date(timeIntervalSince1970: -1)
        #expect(throws: CryptoError.self) { try builder.sign(with: chain.rootKey) }
    }

    @Test("key usage bit strings follow the named-bit-list rule")
    func keyUsageBits() {
        #expect(X509KeyUsage.digitalSignature.bitString == DERBitString(bytes: [0x80], unusedBitCount: 7))
        #expect(X509KeyUsage([.keyCertSign, .cRLSign]).bitString == DERBitString(bytes: [0x06], unusedBitCount: 1))
        #expect(X509KeyUsage.decipherOnly.bitString == DERBitString(bytes: [0x00, 0x80], unusedBitCount: 7))
        for raw in UInt16(0)...0x01FF {
            let usage = X509KeyUsage(rawValue: raw)
            #expect(X509KeyUsage(bitString: usage.bitString) == usage)
        }
    }
}
