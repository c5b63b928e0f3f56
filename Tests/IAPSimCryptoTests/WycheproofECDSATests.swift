import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("Wycheproof ECDSA P-256 / SHA-256")
struct WycheproofECDSATests {
    struct File: Decodable {
        struct Group: Decodable {
            let publicKeyDer: String
            let sha: String
            let tests: [Case]
        }
        struct Case: Decodable {
            let tcId: Int
            let comment: String
            let msg: String
            let sig: String
            let result: String
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    struct Tally: Equatable {
        var valid = 0
        var invalid = 0
    }

    /// Runs every case: "valid" must verify, "invalid" must fail to parse or to verify.
    private func run(_ path: String, parse: ([UInt8]) throws -> ECDSASignature) throws -> (Tally, Int) {
        let file = try VectorFiles.decode(File.self, from: path)
        var tally = Tally()
        for group in file.testGroups {
            #expect(group.sha == "SHA-256")
            let key = try P256PublicKey(derRepresentation: [UInt8](hex: group.publicKeyDer))
            for test in group.tests {
                let message = try [UInt8](hex: test.msg)
                let signatureBytes = try [UInt8](hex: test.sig)
                let accepted = (try? parse(signatureBytes)).map { key.isValidSignature($0, for: message) } ?? false
                switch test.result {
                case "valid":
                    tally.valid += 1
                    #expect(accepted, "tcId \(test.tcId) (\(test.comment)) should verify")
                case "invalid":
                    tally.invalid += 1
                    #expect(!accepted, "tcId \(test.tcId) (\(test.comment)) should be rejected")
                default:
                    Issue.record("tcId \(test.tcId): unexpected result \(test.result)")
                }
            }
        }
        return (tally, file.numberOfTests)
    }

    @Test("P1363 (raw r‖s) form: all 262 cases")
    func p1363() throws {
        let (tally, declared) = try run("wycheproof/ecdsa_secp256r1_sha256_p1363_test.json") {
            try ECDSASignature(rawRepresentation: $0)
        }
        #expect(declared == 262)
        #expect(tally.valid + tally.invalid == 262)
        #expect(tally == Tally(valid: 173, invalid: 89))
    }

    @Test("DER form: all 484 cases")
    func der() throws {
        let (tally, declared) = try run("wycheproof/ecdsa_secp256r1_sha256_test.json") {
            let signature = try ECDSASignature(derRepresentation: $0)
            // A strict parser re-encodes to exactly the input.
            #expect(signature.derRepresentation == $0)
            return signature
        }
        #expect(declared == 484)
        #expect(tally.valid + tally.invalid == 484)
        #expect(tally == Tally(valid: 174, invalid: 310))
    }
}
