import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("AES and AES-GCM")
struct AESGCMTests {
    struct FIPS197: Decodable {
        struct Vector: Decodable {
            let key: String
            let ciphertext: String
        }
        let plaintext: String
        let vectors: [Vector]
    }

    struct Wycheproof: Decodable {
        struct Group: Decodable {
            let keySize: Int
            let ivSize: Int
            let tagSize: Int
            let tests: [Case]
        }
        struct Case: Decodable {
            let tcId: Int
            let comment: String
            let key: String
            let iv: String
            let aad: String
            let msg: String
            let ct: String
            let tag: String
            let result: String
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    @Test("FIPS 197 appendix C: one block under 128-, 192- and 256-bit keys")
    func blockCipher() throws {
        let file = try VectorFiles.decode(FIPS197.self, from: "fips197-aes.json")
        #expect(file.vectors.count == 3)
        for vector in file.vectors {
            let cipher = try AESBlockCipher(key: [UInt8](hex: vector.key))
            #expect(cipher.encrypt(block: try [UInt8](hex: file.plaintext))?.hex == vector.ciphertext)
        }
    }

    @Test("keys of other lengths are refused")
    func keyLengths() {
        for length in [0, 15, 17, 31, 33] {
            #expect(throws: CryptoError.invalidKeyLength(length)) {
                try AESGCM(key: [UInt8](repeating: 1, count: length))
            }
        }
    }

    /// Every valid case seals to the published ciphertext and tag and opens again; every
    /// invalid one (altered tags, empty nonces) fails to open.
    @Test("Wycheproof aes_gcm_test.json: all 316 cases")
    func wycheproof() throws {
        let file = try VectorFiles.decode(Wycheproof.self, from: "wycheproof/aes_gcm_test.json")
        var valid = 0
        var invalid = 0
        for group in file.testGroups {
            #expect(group.tagSize == 128)
            for test in group.tests {
                let key = try [UInt8](hex: test.key)
                let nonce = try [UInt8](hex: test.iv)
                let aad = try [UInt8](hex: test.aad)
                let message = try [UInt8](hex: test.msg)
                let ciphertext = try [UInt8](hex: test.ct)
                let tag = try [UInt8](hex: test.tag)
                let gcm = try AESGCM(key: key)
                let opened = try? gcm.open(ciphertext, tag: tag, nonce: nonce, authenticating: aad)
                switch test.result {
                case "valid":
                    valid += 1
                    let sealed = try gcm.seal(message, nonce: nonce, authenticating: aad)
                    #expect(sealed.ciphertext == ciphertext, "tcId \(test.tcId) (\(test.comment)) ciphertext")
                    #expect(sealed.tag == tag, "tcId \(test.tcId) (\(test.comment)) tag")
                    #expect(opened == message, "tcId \(test.tcId) (\(test.comment)) should open")
                case "invalid":
                    invalid += 1
                    #expect(opened == nil, "tcId \(test.tcId) (\(test.comment)) should be rejected")
                default:
                    Issue.record("tcId \(test.tcId): unexpected result \(test.result)")
                }
            }
        }
        #expect(file.numberOfTests == 316)
        #expect(valid == 229 && invalid == 87)
    }

    @Test("a flipped bit anywhere in ciphertext, tag or associated data is refused")
    func tampering() throws {
        let gcm = try AESGCM(key: [UInt8](repeating: 7, count: 16))
        let nonce = [UInt8](repeating: 3, count: 12)
        let aad: [UInt8] = [1, 2, 3]
        let message = [UInt8](0..<100)
        let sealed = try gcm.seal(message, nonce: nonce, authenticating: aad)
        #expect(try gcm.open(sealed.ciphertext, tag: sealed.tag, nonce: nonce, authenticating: aad) == message)
        for index in [0, 50, 99] {
            var altered = sealed.ciphertext
            altered[index] ^= 1
            #expect(throws: CryptoError.authenticationFailure) {
                try gcm.open(altered, tag: sealed.tag, nonce: nonce, authenticating: aad)
            }
        }
        var tag = sealed.tag
        tag[15] ^= 0x80
        #expect(throws: CryptoError.authenticationFailure) {
            try gcm.open(sealed.ciphertext, tag: tag, nonce: nonce, authenticating: aad)
        }
        #expect(throws: CryptoError.authenticationFailure) {
            try gcm.open(sealed.ciphertext, tag: sealed.tag, nonce: nonce, authenticating: [1, 2, 4])
        }
        #expect(throws: CryptoError.authenticationFailure) {
            try gcm.open(sealed.ciphertext, tag: Array(sealed.tag.prefix(12)), nonce: nonce, authenticating: aad)
        }
    }
}
