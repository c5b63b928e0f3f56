import Foundation
import IAPSimCrypto
import IAPSimJSON
import IAPSimKit
import Testing

@testable import iapsim

/// `iapsim token`: a first curl needs no openssl recipe.
@Suite struct TokenCommandTests {
    static func claims(_ token: String) throws -> JSONValue {
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        return try JSONValue.parse(try Base64URL.decode(parts[1]))
    }

    @Test func theTokenIsOneServeAccepts() throws {
        let harness = Harness()
        let result = harness.run("token")
        #expect(result.status == 0, "\(result.stderr)")
        let token = result.stdout.trimmingCharacters(in: .newlines)
        let claims = try Self.claims(token)
        #expect(claims["aud"]?.stringValue == "appstoreconnect-v1")
        #expect(claims["bid"]?.stringValue == "com.example.app")
        let verifier = BearerTokenVerifier()
        let now = Date(timeIntervalSince1970: 1_768_478_400)
        #expect(throws: Never.self) {
            try verifier.verify(authorization: "Bearer " + token, bundleID: "com.example.app", now: now)
        }
    }

    @Test func aKeyFileSignsIt() throws {
        let harness = Harness()
        let key = try P256PrivateKey.generate()
        let file = Harness.temporaryPath("key-") + ".p8"
        try FileManager().createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: file))
        let result = harness.run("token", "--key-file", file, "--key-id", "ABC123", "--issuer-id", "team")
        #expect(result.status == 0, "\(result.stderr)")
        let token = result.stdout.trimmingCharacters(in: .newlines)
        let verifier = BearerTokenVerifier(publicKey: key.publicKey, keyID: "ABC123", issuerID: "team")
        #expect(throws: Never.self) {
            try verifier.verify(
                authorization: "Bearer " + token, bundleID: "com.example.app",
                now: Date(timeIntervalSince1970: 1_768_478_400))
        }
        let missing = harness.run("token", "--key-file", "/nonexistent.p8")
        #expect(missing.status == 64 && missing.stderr.contains("--key-file /nonexistent.p8: cannot read it"))
    }
}
