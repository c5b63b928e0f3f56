import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("Wycheproof RSASSA-PKCS1-v1_5 / SHA-256 (RSA-2048)")
struct WycheproofRSATests {
    struct VerifyFile: Decodable {
        struct Group: Decodable {
            let publicKeyDer: String
            let sha: String
            let keySize: Int
            let tests: [Case]
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    struct Case: Decodable {
        let tcId: Int
        let comment: String
        let msg: String
        let sig: String
        let result: String
        let flags: [String]
    }

    struct GenerateFile: Decodable {
        struct Group: Decodable {
            let privateKeyPkcs8: String
            let keyDer: String
            let sha: String
            let tests: [Case]
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    /// Every case of the verification file: the 9 valid ones verify; the 249 invalid ones
    /// (BER-encoded and otherwise modified padding, wrong hashes, malleated signatures …) and the
    /// one "acceptable" case — a DigestInfo without its NULL, which Wycheproof lets a verifier
    /// take or refuse — are refused, because the verifier compares the whole encoded block.
    @Test("verification: all 259 cases")
    func verification() throws {
        let file = try VectorFiles.decode(VerifyFile.self, from: "wycheproof/rsa_signature_2048_sha256_test.json")
        var (valid, invalid, acceptable) = (0, 0, 0)
        for group in file.testGroups {
            #expect(group.sha == "SHA-256" && group.keySize == 2048)
            let key = try RSAPublicKey(derRepresentation: [UInt8](hex: group.publicKeyDer))
            #expect(key.derRepresentation == (try [UInt8](hex: group.publicKeyDer)), "SPKI re-encodes byte for byte")
            for test in group.tests {
                let accepted = key.isValidSignature(try [UInt8](hex: test.sig), for: try [UInt8](hex: test.msg))
                switch test.result {
                case "valid":
                    valid += 1
                    #expect(accepted, "tcId \(test.tcId) (\(test.comment)) should verify")
                case "invalid":
                    invalid += 1
                    #expect(!accepted, "tcId \(test.tcId) (\(test.comment), \(test.flags)) should be rejected")
                default:
                    acceptable += 1
                    #expect(test.flags == ["MissingNull"])
                    #expect(!accepted, "tcId \(test.tcId): a DigestInfo without NULL is refused here")
                }
            }
        }
        #expect(file.numberOfTests == 259)
        #expect(valid == 9 && invalid == 249 && acceptable == 1)
    }

    /// The SHA-256 groups of the generation file: signing the message with the published
    /// PKCS #8 key gives exactly the published signature (PKCS #1 v1.5 is deterministic), and it
    /// verifies under the published public key.
    @Test("generation: the SHA-256 cases, byte for byte")
    func generation() throws {
        let file = try VectorFiles.decode(GenerateFile.self, from: "wycheproof/rsa_pkcs1_2048_sig_gen_test.json")
        #expect(file.numberOfTests == 43)
        var checked = 0
        for group in file.testGroups where group.sha == "SHA-256" {
            let pkcs8 = try [UInt8](hex: group.privateKeyPkcs8)
            let key = try RSAPrivateKey(derRepresentation: pkcs8)
            #expect(key.derRepresentation == pkcs8, "PKCS #8 re-encodes byte for byte")
            #expect(key.publicKey == (try RSAPublicKey(derRepresentation: [UInt8](hex: group.keyDer))))
            for test in group.tests {
                let message = try [UInt8](hex: test.msg)
                let published = try [UInt8](hex: test.sig)
                let signature = key.signature(for: message)
                // "acceptable" cases publish a signature with its leading zero bytes dropped.
                let padded = [UInt8](repeating: 0, count: signature.count - published.count) + published
                #expect(signature == padded, "tcId \(test.tcId) (\(test.comment))")
                #expect(key.publicKey.isValidSignature(signature, for: message))
                checked += 1
            }
        }
        #expect(checked == 10)
    }
}
