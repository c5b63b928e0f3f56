import Foundation
import Testing

@Suite("Test vector files")
struct VectorFilesTests {
    /// Every file the vector tests read, and the licence that must travel with Wycheproof's.
    static let files = [
        "sha256-known-answers.json", "sha1-known-answers.json", "rfc6979-p256-sha256.json",
        "wycheproof/ecdsa_secp256r1_sha256_p1363_test.json", "wycheproof/ecdsa_secp256r1_sha256_test.json",
        "wycheproof/hmac_sha256_test.json", "wycheproof/LICENSE", "fips197-aes.json", "rfc7748-x25519.json",
        "rfc5869-hkdf-sha256.json", "wycheproof/aes_gcm_test.json", "wycheproof/x25519_test.json",
        "wycheproof/hkdf_sha256_test.json", "wycheproof/ecdh_secp256r1_ecpoint_test.json",
    ]

    @Test("every vector file is in the test bundle, and the fixtures' README names it")
    func bundled() throws {
        let readme = try String(contentsOf: VectorFiles.url("README.md"), encoding: .utf8)
        for file in Self.files {
            #expect(throws: Never.self) { try VectorFiles.url(file) }
            #expect(readme.contains("`\(file)`"), "README.md does not describe \(file)")
        }
        let license = try String(contentsOf: VectorFiles.url("wycheproof/LICENSE"), encoding: .utf8)
        #expect(license.contains("Apache License") && license.contains("Version 2.0"))
    }

    @Test("a missing vector file fails loudly instead of skipping")
    func missing() {
        #expect {
            _ = try VectorFiles.url("no-such-vectors.json")
        } throws: { error in
            String(describing: error).contains("Test vectors not found: no Fixtures/no-such-vectors.json")
        }
    }
}
