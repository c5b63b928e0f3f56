import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("HKDF-SHA-256")
struct HKDFSHA256Tests {
    struct RFC5869: Decodable {
        struct Case: Decodable {
            let name: String
            let ikm: String
            let salt: String
            let info: String
            let length: Int
            let prk: String
            let okm: String
        }
        let cases: [Case]
    }

    struct Wycheproof: Decodable {
        struct Group: Decodable {
            let tests: [Case]
        }
        struct Case: Decodable {
            let tcId: Int
            let comment: String
            let ikm: String
            let salt: String
            let info: String
            let size: Int
            let okm: String
            let result: String
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    @Test("RFC 5869 appendix A, test cases 1–3: PRK and OKM")
    func rfc5869() throws {
        let file = try VectorFiles.decode(RFC5869.self, from: "rfc5869-hkdf-sha256.json")
        #expect(file.cases.count == 3)
        for test in file.cases {
            let prk = HKDFSHA256.extract(
                salt: try [UInt8](hex: test.salt), inputKeyMaterial: try [UInt8](hex: test.ikm))
            #expect(prk.hex == test.prk, "\(test.name)")
            let okm = try HKDFSHA256.expand(
                pseudorandomKey: prk, info: try [UInt8](hex: test.info), outputByteCount: test.length)
            #expect(okm.hex == test.okm, "\(test.name)")
        }
    }

    @Test("Wycheproof hkdf_sha256_test.json: all 86 cases, oversized outputs refused")
    func wycheproof() throws {
        let file = try VectorFiles.decode(Wycheproof.self, from: "wycheproof/hkdf_sha256_test.json")
        var valid = 0
        var invalid = 0
        for group in file.testGroups {
            for test in group.tests {
                let prk = HKDFSHA256.extract(
                    salt: try [UInt8](hex: test.salt), inputKeyMaterial: try [UInt8](hex: test.ikm))
                let okm = try? HKDFSHA256.expand(
                    pseudorandomKey: prk, info: try [UInt8](hex: test.info), outputByteCount: test.size)
                if test.result == "valid" {
                    valid += 1
                    #expect(okm?.hex == test.okm, "tcId \(test.tcId) (\(test.comment))")
                } else {
                    invalid += 1
                    #expect(okm == nil, "tcId \(test.tcId) (\(test.comment)) should be refused")
                }
            }
        }
        #expect(file.numberOfTests == 86)
        #expect(valid == 83 && invalid == 3)
    }
}
