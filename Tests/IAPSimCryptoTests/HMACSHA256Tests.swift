import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("HMACSHA256")
struct HMACSHA256Tests {
    struct WycheproofMAC: Decodable {
        struct Group: Decodable {
            let keySize: Int
            let tagSize: Int
            let tests: [Case]
        }
        struct Case: Decodable {
            let tcId: Int
            let comment: String
            let key: String
            let msg: String
            let tag: String
            let result: String
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    @Test("Wycheproof hmac_sha256_test.json: every valid tag accepted, every invalid rejected")
    func wycheproof() throws {
        let file = try VectorFiles.decode(WycheproofMAC.self, from: "wycheproof/hmac_sha256_test.json")
        var valid = 0
        var invalid = 0
        for group in file.testGroups {
            for test in group.tests {
                let key = try [UInt8](hex: test.key)
                let message = try [UInt8](hex: test.msg)
                let tag = try [UInt8](hex: test.tag)
                // The group's tagSize (bits) says how far the expected tag is truncated.
                let computed = Array(HMACSHA256.authenticationCode(for: message, key: key).prefix(group.tagSize / 8))
                let accepted = HMACSHA256.isValidAuthenticationCode(tag, for: message, key: key)
                #expect(accepted == (computed == tag), "tcId \(test.tcId)")
                switch test.result {
                case "valid":
                    valid += 1
                    #expect(computed == tag && accepted, "tcId \(test.tcId) \(test.comment) should verify")
                case "invalid":
                    invalid += 1
                    #expect(computed != tag && !accepted, "tcId \(test.tcId) \(test.comment) should fail")
                default:
                    Issue.record("tcId \(test.tcId): unexpected result \(test.result)")
                }
            }
        }
        #expect(valid + invalid == file.numberOfTests)
        #expect(file.numberOfTests == 174)
        #expect(valid == 66 && invalid == 108)
    }

    @Test("RFC 4231 test case 2 and streaming")
    func rfc4231() {
        let tag = HMACSHA256.authenticationCode(
            for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(tag.hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        var mac = HMACSHA256(key: Array("Jefe".utf8))
        mac.update(Array("what do ya want ".utf8))
        mac.update(Array("for nothing?".utf8))
        #expect(mac.finalize() == tag)
        // Tags shorter than 16 bytes are refused even when they match.
        #expect(
            !HMACSHA256.isValidAuthenticationCode(
                tag.prefix(15), for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
    }
}
