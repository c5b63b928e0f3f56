import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("ECDSA P-256 known answers (RFC 6979 A.2.5)")
struct ECDSAKnownAnswerTests {
    struct RFC6979File: Decodable {
        struct Signature: Decodable {
            let messageASCII: String
            let k: String
            let r: String
            let s: String

            enum CodingKeys: String, CodingKey {
                case messageASCII = "message_ascii"
                case k, r, s
            }
        }
        let privateKey: String
        let publicKeyX: String
        let publicKeyY: String
        let signatures: [Signature]
    }

    @Test("public key, nonce k, r and s match the RFC exactly for \"sample\" and \"test\"")
    func rfc6979() throws {
        let file = try VectorFiles.decode(RFC6979File.self, from: "rfc6979-p256-sha256.json")
        let key = try P256PrivateKey(rawRepresentation: [UInt8](hex: file.privateKey))
        #expect(key.publicKey.x963Representation == [0x04] + (try [UInt8](hex: file.publicKeyX + file.publicKeyY)))
        #expect(file.signatures.map(\.messageASCII) == ["sample", "test"])
        for vector in file.signatures {
            let digest = SHA256.hash(Array(vector.messageASCII.utf8))
            var nonces = RFC6979Nonce(privateKey: key.scalar, digest: digest)
            #expect(nonces.next().bigEndianBytes == (try [UInt8](hex: vector.k)), "k for \(vector.messageASCII)")
            let signature = key.signature(for: Array(vector.messageASCII.utf8))
            let expected = try [UInt8](hex: vector.r + vector.s)
            #expect(signature.rawRepresentation == expected, "r‖s for \(vector.messageASCII)")
            #expect(try key.signature(digest: digest) == signature)
            #expect(key.publicKey.isValidSignature(signature, for: Array(vector.messageASCII.utf8)))
        }
    }

    @Test("sign/verify reject digests that are not 32 bytes")
    func digestLength() throws {
        let key = try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [1])
        #expect(throws: CryptoError.invalidDigestLength(31)) {
            try key.signature(digest: [UInt8](repeating: 1, count: 31))
        }
        let signature = try key.signature(digest: [UInt8](repeating: 1, count: 32))
        #expect(!key.publicKey.isValidSignature(signature, digest: [UInt8](repeating: 1, count: 33)))
    }
}
