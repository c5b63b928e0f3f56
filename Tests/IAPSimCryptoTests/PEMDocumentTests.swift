import Testing

@testable import IAPSimCrypto

@Suite("PEMDocument")
struct PEMDocumentTests {
    @Test("round trip with 64-column lines, several blocks, CRLF and surrounding text")
    func roundTrip() throws {
        let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let pem = PEMDocument(label: "CERTIFICATE", derBytes: bytes).pemString
        let lines = pem.split(separator: "\n")
        #expect(lines.first == "-----BEGIN CERTIFICATE-----" && lines.last == "-----END CERTIFICATE-----")
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.count <= 64 })
        #expect(lines[1].count == 64)
        let bundle =
            "comment\n" + PEMDocument(label: "EC PARAMETERS", derBytes: [6, 0]).pemString
            + pem.replacingOccurrences(of: "\n", with: "\r\n") + "trailer"
        let documents = try PEMDocument.parseAll(bundle)
        #expect(documents.map(\.label) == ["EC PARAMETERS", "CERTIFICATE"])
        #expect(try PEMDocument(pemString: bundle, label: "CERTIFICATE").derBytes == bytes)
        #expect(throws: CryptoError.pemBlockNotFound(label: "PUBLIC KEY")) {
            try PEMDocument(pemString: bundle, label: "PUBLIC KEY")
        }
    }

    @Test(
        "malformed blocks throw",
        arguments: [
            "",
            "-----BEGIN CERTIFICATE-----\nAAAA\n",
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "-----BEGIN CERTIFICATE-----\nAA*A\n-----END CERTIFICATE-----\n",
            "-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n",
            "-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nAAAA\n-----END EC PRIVATE KEY-----\n",
            "-----BEGIN certificate-----\nAAAA\n-----END certificate-----\n",
            "-----BEGIN CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        ])
    func malformed(_ text: String) {
        #expect(throws: CryptoError.self) { try PEMDocument.parseAll(text) }
    }

    @Test("private key PEM of the wrong kind is refused")
    func wrongKind() throws {
        let key = try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [9])
        #expect(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: key.publicKey.pemRepresentation) }
        #expect(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: key.pemRepresentation) }
        // A PKCS#8 body under the SEC 1 label is refused rather than guessed at.
        let mislabelled = PEMDocument(label: "EC PRIVATE KEY", derBytes: key.derRepresentation).pemString
        #expect(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: mislabelled) }
    }
}
