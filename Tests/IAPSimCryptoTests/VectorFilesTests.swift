import Foundation
import Testing

@Suite("Test vector location")
struct VectorFilesTests {
    @Test("the shared vectors are found from this checkout")
    func found() throws {
        let url = try VectorFiles.url("wycheproof/ecdsa_secp256r1_sha256_test.json")
        #expect(url.path.hasSuffix("shared/vectors/wycheproof/ecdsa_secp256r1_sha256_test.json"))
    }

    @Test("a checkout without shared/vectors fails loudly instead of skipping")
    func missing() {
        #expect {
            _ = try VectorFiles.url("sha256-known-answers.json", filePath: "/nonexistent/checkout/Tests/X/Y.swift")
        } throws: { error in
            String(describing: error).contains("Test vectors not found")
        }
    }
}
