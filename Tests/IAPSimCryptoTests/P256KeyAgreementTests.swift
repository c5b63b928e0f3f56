import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("P-256 ECDH")
struct P256KeyAgreementTests {
    struct Wycheproof: Decodable {
        struct Group: Decodable {
            let curve: String
            let encoding: String
            let tests: [Case]
        }
        struct Case: Decodable {
            let tcId: Int
            let comment: String
            let `public`: String
            let `private`: String
            let shared: String
            let result: String
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    /// The public keys are SEC 1 points, as a TLS key share carries them. Valid cases must
    /// give the published secret; invalid ones (points off the curve, wrong curves, bad
    /// encodings) must be refused where the point is read; the one acceptable case is a
    /// compressed point, which TLS 1.3 does not allow and which is refused too.
    @Test("Wycheproof ecdh_secp256r1_ecpoint_test.json: all 355 cases")
    func wycheproof() throws {
        let file = try VectorFiles.decode(Wycheproof.self, from: "wycheproof/ecdh_secp256r1_ecpoint_test.json")
        var counts = (valid: 0, invalid: 0, acceptable: 0)
        for group in file.testGroups {
            #expect(group.curve == "secp256r1" && group.encoding == "ecpoint")
            for test in group.tests {
                let scalar = Array(try [UInt8](hex: test.private).drop(while: { $0 == 0 }))
                let key = try P256PrivateKey(
                    rawRepresentation: [UInt8](repeating: 0, count: 32 - scalar.count) + scalar)
                let shared = (try? P256PublicKey(x963Representation: [UInt8](hex: test.public))).flatMap {
                    try? key.sharedSecret(with: $0)
                }
                switch test.result {
                case "valid":
                    counts.valid += 1
                    #expect(shared?.hex == test.shared, "tcId \(test.tcId) (\(test.comment))")
                case "invalid":
                    counts.invalid += 1
                    #expect(shared == nil, "tcId \(test.tcId) (\(test.comment)) should be refused")
                default:
                    counts.acceptable += 1
                    #expect(shared == nil, "tcId \(test.tcId) (\(test.comment)): compressed points are not read")
                }
            }
        }
        #expect(file.numberOfTests == 355)
        #expect(counts.valid == 330 && counts.invalid == 24 && counts.acceptable == 1)
    }

    @Test("both sides of an exchange agree")
    func agreement() throws {
        var generator = SeededGenerator(seed: 42)
        let alice = try P256PrivateKey.generate(using: &generator)
        let bob = try P256PrivateKey.generate(using: &generator)
        #expect(try alice.sharedSecret(with: bob.publicKey) == bob.sharedSecret(with: alice.publicKey))
    }
}
