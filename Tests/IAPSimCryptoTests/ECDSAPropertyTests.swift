import Testing

@testable import IAPSimCrypto

@Suite("ECDSA sign → verify properties")
struct ECDSAPropertyTests {
    @Test("300 random keys and messages: signatures verify, tampering is caught")
    func signVerify() throws {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("ECDSAPropertyTests.signVerify"))
        for round in 0..<300 {
            let key = try P256PrivateKey.generate(using: &generator)
            let length = Int.random(in: 0...300, using: &generator)
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let signature = key.signature(for: message)
            #expect(key.publicKey.isValidSignature(signature, for: message), "round \(round)")
            #expect(try ECDSASignature(rawRepresentation: signature.rawRepresentation) == signature)
            #expect(try ECDSASignature(derRepresentation: signature.derRepresentation) == signature)
            // Deterministic: signing again gives the same signature.
            #expect(key.signature(for: message) == signature)

            var tamperedMessage = message + [0]
            if !message.isEmpty {
                tamperedMessage = message
                let index = Int.random(in: 0..<message.count, using: &generator)
                tamperedMessage[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            }
            #expect(!key.publicKey.isValidSignature(signature, for: tamperedMessage), "round \(round)")

            var raw = signature.rawRepresentation
            raw[Int.random(in: 0..<64, using: &generator)] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            #expect(
                !key.publicKey.isValidSignature(try ECDSASignature(rawRepresentation: raw), for: message),
                "round \(round)")

            let otherKey = try P256PrivateKey.generate(using: &generator)
            #expect(!otherKey.publicKey.isValidSignature(signature, for: message), "round \(round)")
        }
    }

    @Test("keys round-trip through raw, PKCS#8, SEC 1, SPKI and PEM")
    func keyEncodings() throws {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("ECDSAPropertyTests.keyEncodings"))
        for _ in 0..<20 {
            let key = try P256PrivateKey.generate(using: &generator)
            #expect(try P256PrivateKey(rawRepresentation: key.rawRepresentation).publicKey == key.publicKey)
            #expect(
                try P256PrivateKey(derRepresentation: key.derRepresentation).rawRepresentation == key.rawRepresentation)
            #expect(
                try P256PrivateKey(sec1DERRepresentation: key.sec1DERRepresentation).rawRepresentation
                    == key.rawRepresentation)
            #expect(
                try P256PrivateKey(pemRepresentation: key.pemRepresentation).rawRepresentation == key.rawRepresentation)
            #expect(
                try P256PrivateKey(pemRepresentation: key.sec1PEMRepresentation).rawRepresentation
                    == key.rawRepresentation)
            #expect(try P256PublicKey(derRepresentation: key.publicKey.derRepresentation) == key.publicKey)
            #expect(try P256PublicKey(pemRepresentation: key.publicKey.pemRepresentation) == key.publicKey)
            #expect(try P256PublicKey(rawRepresentation: key.publicKey.rawRepresentation) == key.publicKey)
        }
    }

    @Test("key generation rejects out-of-range draws and gives up on a stuck generator")
    func generation() throws {
        struct Constant: RandomNumberGenerator {
            let value: UInt64
            mutating func next() -> UInt64 { value }
        }
        var allOnes = Constant(value: .max)  // ≥ n every time
        #expect(throws: CryptoError.randomSourceFailed) { try P256PrivateKey.generate(using: &allOnes) }
        var zeros = Constant(value: 0)  // zero every time
        #expect(throws: CryptoError.randomSourceFailed) { try P256PrivateKey.generate(using: &zeros) }
        var ones = Constant(value: 1)
        let key = try P256PrivateKey.generate(using: &ones)
        #expect(
            key.rawRepresentation == [
                0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
            ])
        _ = try P256PrivateKey.generate()
    }

    @Test("private keys outside [1, n-1] and bad public points are refused")
    func invalidKeys() throws {
        let order = P256Scalar.order.bigEndianBytes
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: order) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0xFF, count: 32)) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [1]) }
        var nMinusOne = order
        nMinusOne[31] -= 1
        let last = try P256PrivateKey(rawRepresentation: nMinusOne)
        // (n-1)·G = -G.
        let generator = P256AffinePoint.generator
        #expect(last.publicKey.point == generator.negated)

        let good = last.publicKey.x963Representation
        var offCurve = good
        offCurve[64] ^= 1
        #expect(throws: CryptoError.self) { try P256PublicKey(x963Representation: offCurve) }
        var compressed = Array(good[0..<33])
        compressed[0] = 0x02
        #expect(throws: CryptoError.self) { try P256PublicKey(x963Representation: compressed) }
        #expect(throws: CryptoError.self) { try P256PublicKey(x963Representation: [0x00]) }
        // x = p (non-canonical) is refused even though p ≡ 0.
        let p = P256FieldElement.modulus.bigEndianBytes
        #expect(throws: CryptoError.self) { try P256PublicKey(x963Representation: [0x04] + p + good[33...]) }
    }

    @Test("ES256 compact JWS round trip")
    func es256() throws {
        var generator = SeededGenerator(seed: 7)
        let key = try P256PrivateKey.generate(using: &generator)
        let jws = ES256.compactSerialization(
            header: Array(#"{"alg":"ES256"}"#.utf8), payload: Array(#"{"productId":"pro"}"#.utf8), key: key)
        let parts = jws.split(separator: ".")
        #expect(parts.count == 3)
        #expect(try Base64URL.decode(parts[2]).count == 64)
        #expect(
            ES256.verifiedPayload(ofCompactSerialization: jws, publicKey: key.publicKey)
                == Array(#"{"productId":"pro"}"#.utf8))
        let tampered = String(jws.dropLast()) + (jws.hasSuffix("A") ? "B" : "A")
        #expect(ES256.verifiedPayload(ofCompactSerialization: tampered, publicKey: key.publicKey) == nil)
        #expect(!ES256.isValidSignature("!!", signingInput: "a.b", publicKey: key.publicKey))
    }
}
