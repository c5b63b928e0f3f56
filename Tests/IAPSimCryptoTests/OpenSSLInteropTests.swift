import Foundation
import Testing

@testable import IAPSimCrypto

/// Cross-checks against /usr/bin/openssl: each side verifies the other's signatures and
/// reads the other's keys, and openssl validates our certificate chain strictly.
@Suite("OpenSSL interoperability")
struct OpenSSLInteropTests {
    @Test("openssl verifies our DER signatures and rejects a tampered message")
    func opensslVerifiesOurs() throws {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("OpenSSLInteropTests.opensslVerifiesOurs"))
        try withTemporaryDirectory { directory in
            for round in 0..<8 {
                let key = try P256PrivateKey.generate(using: &generator)
                let message = (0..<Int.random(in: 0...2000, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                try directory.write(key.publicKey.pemRepresentation, to: "pub.pem")
                try directory.write(message, to: "msg")
                try directory.write(key.signature(for: message).derRepresentation, to: "sig.der")
                let result = try OpenSSL.run(
                    ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "msg"], in: directory)
                #expect(result.status == 0, "round \(round): \(result.standardError)")
                #expect(result.outputText.contains("Verified OK"))
                try directory.write(message + [0x2A], to: "msg")
                let tampered = try OpenSSL.run(
                    ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "msg"], in: directory)
                #expect(tampered.status != 0, "round \(round): openssl accepted a tampered message")
            }
        }
    }

    @Test("we read openssl ecparam keys (SEC 1 after EC PARAMETERS) and verify openssl's signatures")
    func weVerifyOpenSSLSignatures() throws {
        try withTemporaryDirectory { directory in
            for round in 0..<4 {
                try OpenSSL.run(["ecparam", "-name", "prime256v1", "-genkey", "-out", "key.pem"], in: directory)
                let pem = try directory.read("key.pem")
                #expect(pem.contains("BEGIN EC PARAMETERS") && pem.contains("BEGIN EC PRIVATE KEY"))
                let key = try P256PrivateKey(pemRepresentation: pem)
                try OpenSSL.run(["pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"], in: directory)
                #expect(try P256PublicKey(pemRepresentation: directory.read("pub.pem")) == key.publicKey)
                #expect(try directory.read("pub.pem") == key.publicKey.pemRepresentation)

                let message = Array("openssl round \(round) \(String(repeating: "x", count: round * 100))".utf8)
                try directory.write(message, to: "msg")
                let signing = try OpenSSL.run(
                    ["dgst", "-sha256", "-sign", "key.pem", "-out", "sig.der", "msg"], in: directory)
                #expect(signing.status == 0, "\(signing.standardError)")
                let signatureBytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent("sig.der")))
                let signature = try ECDSASignature(derRepresentation: signatureBytes)
                #expect(key.publicKey.isValidSignature(signature, for: message), "round \(round)")
                #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
            }
        }
    }

    @Test("we read openssl genpkey PKCS#8 keys")
    func weReadGenpkey() throws {
        try withTemporaryDirectory { directory in
            for _ in 0..<3 {
                let generated = try OpenSSL.run(
                    ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"],
                    in: directory)
                #expect(generated.status == 0, "\(generated.standardError)")
                let pem = try directory.read("key.pem")
                #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
                let key = try P256PrivateKey(pemRepresentation: pem)
                // openssl writes exactly what we write, so our encoder matches byte for byte.
                #expect(key.pemRepresentation == pem)
                try OpenSSL.run(["pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"], in: directory)
                #expect(try P256PublicKey(pemRepresentation: directory.read("pub.pem")) == key.publicKey)
            }
        }
    }

    @Test("openssl reads our PKCS#8, SEC 1 and SPKI PEM and re-encodes them identically")
    func opensslReadsOurKeys() throws {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("OpenSSLInteropTests.opensslReadsOurKeys"))
        try withTemporaryDirectory { directory in
            for _ in 0..<3 {
                let key = try P256PrivateKey.generate(using: &generator)
                try directory.write(key.pemRepresentation, to: "pkcs8.pem")
                try directory.write(key.sec1PEMRepresentation, to: "sec1.pem")
                try directory.write(key.publicKey.pemRepresentation, to: "pub.pem")
                for file in ["pkcs8.pem", "sec1.pem"] {
                    let check = try OpenSSL.run(["pkey", "-in", file, "-noout"], in: directory)
                    #expect(check.status == 0, "\(file): \(check.standardError)")
                    let validated = try OpenSSL.run(["pkey", "-in", file, "-check", "-noout"], in: directory)
                    #expect(validated.status == 0, "\(file): \(validated.standardError)")
                    let publicKey = try OpenSSL.run(["pkey", "-in", file, "-pubout"], in: directory)
                    #expect(publicKey.outputText == key.publicKey.pemRepresentation, "\(file)")
                }
                #expect(
                    try OpenSSL.run(["pkey", "-in", "pkcs8.pem"], in: directory).outputText == key.pemRepresentation)
                #expect(
                    try OpenSSL.run(["ec", "-in", "sec1.pem"], in: directory).outputText == key.sec1PEMRepresentation)
                let publicCheck = try OpenSSL.run(["pkey", "-pubin", "-in", "pub.pem", "-noout"], in: directory)
                #expect(publicCheck.status == 0, "\(publicCheck.standardError)")
            }
        }
    }

    @Test("openssl verify -x509_strict accepts the chain now, in 1975 and in 2500")
    func opensslVerifiesChain() throws {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("OpenSSLInteropTests.opensslVerifiesChain"))
        let chain = try CertificateChain.generate(using: &generator)
        try withTemporaryDirectory { directory in
            try directory.write(chain.root.pemRepresentation, to: "root.pem")
            try directory.write(chain.intermediate.pemRepresentation, to: "intermediate.pem")
            try directory.write(chain.leaf.pemRepresentation, to: "leaf.pem")
            let base = ["verify", "-x509_strict", "-CAfile", "root.pem", "-untrusted", "intermediate.pem"]
            // 1975-01-01 and 2500-01-01, as seconds since 1970.
            for extra in [[], ["-attime", "157766400"], ["-attime", "16725225600"]] {
                let result = try OpenSSL.run(base + extra + ["leaf.pem"], in: directory)
                #expect(result.status == 0, "\(extra): \(result.outputText) \(result.standardError)")
                #expect(result.outputText == "leaf.pem: OK\n", "\(extra)")
            }
            // The intermediate alone verifies against the root; the leaf without it does not.
            let intermediate = try OpenSSL.run(
                ["verify", "-x509_strict", "-CAfile", "root.pem", "intermediate.pem"], in: directory)
            #expect(intermediate.status == 0, "\(intermediate.standardError)")
            let missing = try OpenSSL.run(["verify", "-x509_strict", "-CAfile", "root.pem", "leaf.pem"], in: directory)
            #expect(missing.status != 0)

            let dates = try OpenSSL.run(["x509", "-in", "leaf.pem", "-noout", "-startdate", "-enddate"], in: directory)
            #expect(dates.outputText == "notBefore=Jan  1 00:00:00 1970 GMT\nnotAfter=Dec 31 23:59:59 9999 GMT\n")
            let subject = try OpenSSL.run(["x509", "-in", "root.pem", "-noout", "-subject", "-issuer"], in: directory)
            #expect(
                subject.outputText
                    == "subject=O = iapsim TEST ONLY, CN = iapsim TEST ONLY Root CA\nissuer=O = iapsim TEST ONLY, CN = iapsim TEST ONLY Root CA\n"
            )
            let text = try OpenSSL.run(["x509", "-in", "intermediate.pem", "-noout", "-text"], in: directory).outputText
            #expect(text.contains("CA:TRUE, pathlen:0"))
            #expect(text.contains("2.999.1:"))
            #expect(text.contains("Certificate Sign, CRL Sign"))
            let leafText = try OpenSSL.run(["x509", "-in", "leaf.pem", "-noout", "-text"], in: directory).outputText
            #expect(leafText.contains("CA:FALSE"))
            #expect(leafText.contains("2.999.2:"))
            #expect(leafText.contains("Digital Signature"))
            // openssl's own SKI calculation is SHA-1 based; ours must still be what the
            // extension says and what the child's AKI says.
            let keyID = X509Extension.keyIdentifier(for: chain.intermediateKey.publicKey)
            let hexID = keyID.map { String(format: "%02X", $0) }.joined(separator: ":")
            #expect(text.contains(hexID))
            #expect(leafText.contains(hexID))
        }
    }

    @Test("openssl rejects the chain when the leaf was signed by a stranger")
    func opensslRejectsForgery() throws {
        var generator = SeededGenerator(seed: 5)
        let chain = try CertificateChain.generate(using: &generator)
        let stranger = try P256PrivateKey.generate(using: &generator)
        let leafName = try chain.leaf.subject()
        let forged = try X509CertificateBuilder(
            serialNumber: [0x55], issuer: try chain.intermediate.subject(), subject: leafName,
            notBefore: CertificateChain.notBefore, notAfter: CertificateChain.notAfter,
            subjectPublicKey: chain.leafKey.publicKey, extensions: chain.leaf.extensions
        ).sign(with: stranger)
        #expect(!forged.isIssued(by: chain.intermediate))
        try withTemporaryDirectory { directory in
            try directory.write(chain.root.pemRepresentation, to: "root.pem")
            try directory.write(chain.intermediate.pemRepresentation, to: "intermediate.pem")
            try directory.write(forged.pemRepresentation, to: "leaf.pem")
            let result = try OpenSSL.run(
                ["verify", "-x509_strict", "-CAfile", "root.pem", "-untrusted", "intermediate.pem", "leaf.pem"],
                in: directory)
            #expect(result.status != 0)
        }
    }

    @Test("we parse and verify an openssl-made certificate")
    func weParseOpenSSLCertificate() throws {
        try withTemporaryDirectory { directory in
            try OpenSSL.run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "key.pem"], in: directory)
            let made = try OpenSSL.run(
                [
                    "req", "-x509", "-new", "-key", "key.pem", "-sha256", "-days", "30", "-subj",
                    "/C=US/O=Example/CN=openssl made",
                    "-out", "cert.pem",
                ], in: directory)
            #expect(made.status == 0, "\(made.standardError)")
            let key = try P256PrivateKey(pemRepresentation: directory.read("key.pem"))
            let certificate = try X509Certificate(pemRepresentation: directory.read("cert.pem"))
            #expect(certificate.version == 3)
            #expect(try certificate.publicKey() == key.publicKey)
            #expect(certificate.isSignatureValid(issuerKey: key.publicKey))
            #expect(certificate.isIssued(by: certificate))
            #expect(try certificate.subject().description == "CN=openssl made, O=Example, C=US")
            #expect(try certificate.subject().attributes.first?.stringTag == DERTag.printableString)
            #expect(certificate.isValid(at: Date()))
            #expect(!certificate.isValid(at: Date().addingTimeInterval(40 * 86_400)))
            let serial = try OpenSSL.run(["x509", "-in", "cert.pem", "-noout", "-serial"], in: directory).outputText
            #expect(serial == "serial=" + certificate.serialNumber.map { String(format: "%02X", $0) }.joined() + "\n")
        }
    }
}
