import Foundation
import Testing

@testable import IAPSimCrypto

/// RSA cross-checks against /usr/bin/openssl: each side verifies the other's signatures, reads
/// the other's keys, and openssl checks our keys and certificates.
@Suite("OpenSSL interoperability (RSA)")
struct OpenSSLRSAInteropTests {
    @Test("openssl checks our key, verifies our signatures and rejects a tampered message")
    func opensslVerifiesOurs() throws {
        let key = try RSAPrivateKey(pemRepresentation: RSAFixture.keyPEM)
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("OpenSSLRSAInteropTests.opensslVerifiesOurs"))
        try withTemporaryDirectory { directory in
            try directory.write(key.pemRepresentation, to: "key.pem")
            try directory.write(key.pkcs1PEMRepresentation, to: "key1.pem")
            try directory.write(key.publicKey.pemRepresentation, to: "pub.pem")
            for name in ["key.pem", "key1.pem"] {
                let check = try OpenSSL.run(["rsa", "-check", "-noout", "-in", name], in: directory)
                #expect(check.status == 0 && check.outputText.contains("RSA key ok"), "\(name): \(check.standardError)")
            }
            let publicKey = try OpenSSL.run(["pkey", "-in", "key.pem", "-pubout"], in: directory)
            #expect(publicKey.outputText == key.publicKey.pemRepresentation)
            for round in 0..<4 {
                let message = (0..<Int.random(in: 0...2000, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                try directory.write(message, to: "msg")
                try directory.write(key.signature(for: message), to: "sig")
                let result = try OpenSSL.run(
                    ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig", "msg"], in: directory)
                #expect(result.status == 0 && result.outputText.contains("Verified OK"), "round \(round)")
                // PKCS #1 v1.5 is deterministic: openssl's own signature is byte for byte ours.
                let theirs = try OpenSSL.run(["dgst", "-sha256", "-sign", "key.pem", "msg"], in: directory)
                #expect([UInt8](theirs.standardOutput) == key.signature(for: message), "round \(round)")
                try directory.write(message + [0x2A], to: "msg")
                let tampered = try OpenSSL.run(
                    ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig", "msg"], in: directory)
                #expect(tampered.status != 0, "round \(round): openssl accepted a tampered message")
            }
        }
    }

    @Test("we read openssl genpkey RSA keys and verify openssl's signatures")
    func weVerifyOpenSSLSignatures() throws {
        try withTemporaryDirectory { directory in
            let made = try OpenSSL.run(
                ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"], in: directory)
            #expect(made.status == 0, "\(made.standardError)")
            let key = try RSAPrivateKey(pemRepresentation: directory.read("key.pem"))
            #expect(key.pemRepresentation == (try directory.read("key.pem")), "PKCS #8 re-encodes as openssl wrote it")
            try OpenSSL.run(["rsa", "-in", "key.pem", "-traditional", "-out", "key1.pem"], in: directory)
            #expect(try RSAPrivateKey(pemRepresentation: directory.read("key1.pem")).publicKey == key.publicKey)
            try OpenSSL.run(["pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"], in: directory)
            let publicKey = try RSAPublicKey(pemRepresentation: directory.read("pub.pem"))
            #expect(publicKey == key.publicKey)
            let message = Array("signed by openssl".utf8)
            try directory.write(message, to: "msg")
            let signing = try OpenSSL.run(["dgst", "-sha256", "-sign", "key.pem", "-out", "sig", "msg"], in: directory)
            #expect(signing.status == 0, "\(signing.standardError)")
            let signature = try [UInt8](Data(contentsOf: directory.appendingPathComponent("sig")))
            #expect(publicKey.isValidSignature(signature, for: message))
            #expect(!publicKey.isValidSignature(signature, for: message + [0]))
        }
    }

    @Test("openssl reads and verifies our sha256WithRSAEncryption certificate")
    func opensslReadsOurCertificate() throws {
        let key = try RSAPrivateKey(pemRepresentation: RSAFixture.keyPEM)
        let name = DistinguishedName(commonName: "iapsim TEST ONLY RSA Root", organization: "iapsim TEST ONLY")
        let root = try X509CertificateBuilder(
            serialNumber: [0x42, 0x01], issuer: name, subject: name, notBefore: Date(timeIntervalSince1970: 0),
            notAfter: Date(timeIntervalSince1970: 253_402_300_799), subjectPublicKey: key.publicKey,
            extensions: [
                .basicConstraints(isCertificateAuthority: true), .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(X509Extension.keyIdentifier(for: key.publicKey)),
            ]
        ).sign(with: key)
        try withTemporaryDirectory { directory in
            try directory.write(root.pemRepresentation, to: "root.pem")
            let text = try OpenSSL.run(["x509", "-in", "root.pem", "-noout", "-text"], in: directory)
            #expect(text.status == 0, "\(text.standardError)")
            #expect(text.outputText.contains("Signature Algorithm: sha256WithRSAEncryption"))
            #expect(text.outputText.contains("Public-Key: (2048 bit)"))
            let verify = try OpenSSL.run(["verify", "-x509_strict", "-CAfile", "root.pem", "root.pem"], in: directory)
            #expect(verify.status == 0, "\(verify.outputText) \(verify.standardError)")
        }
    }
}
