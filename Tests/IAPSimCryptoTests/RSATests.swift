import Foundation
import Testing

@testable import IAPSimCrypto

@Suite("RSA arithmetic, keys and PKCS #1 v1.5 signatures")
struct RSATests {
    /// Random numbers of mixed sizes from a seeded generator.
    private func number(_ limbs: Int, _ generator: inout SeededGenerator) -> BigUInt {
        BigUInt(limbs: (0..<limbs).map { _ in generator.next() })
    }

    @Test("division, multiplication and shifts agree: a = q·b + r with r < b")
    func division() {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("RSATests.division"))
        for _ in 0..<200 {
            let a = number(Int.random(in: 0...40, using: &generator), &generator)
            let b = number(Int.random(in: 1...20, using: &generator), &generator)
            guard !b.isZero else { continue }
            let (q, r) = a.quotientAndRemainder(dividingBy: b)
            #expect(q * b + r == a)
            #expect(r < b)
            let shift = Int.random(in: 0...200, using: &generator)
            #expect((a << shift) >> shift == a)
            #expect(a.remainder(dividingBy: 65_537) == (a % BigUInt(65_537)).limb(0))
        }
    }

    @Test("Montgomery power matches square-and-multiply with plain division")
    func montgomeryPower() {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("RSATests.montgomeryPower"))
        for limbs in [1, 2, 5, 16, 32] {
            var m = number(limbs, &generator)
            m = m.isOdd ? m : m + .one
            guard m > .one else { continue }
            let modulus = MontgomeryModulus(m)
            let base = number(limbs, &generator) % m
            let exponent = number(Int.random(in: 0...3, using: &generator), &generator)
            var expected = BigUInt.one % m
            for index in stride(from: exponent.bitWidth - 1, through: 0, by: -1) {
                expected = (expected * expected) % m
                if exponent.bit(index) { expected = (expected * base) % m }
            }
            #expect(modulus.power(base, exponent) == expected, "\(limbs) limbs")
        }
    }

    @Test("the inverse times the number is 1 modulo m")
    func inverse() {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("RSATests.inverse"))
        for _ in 0..<50 {
            let m = number(8, &generator) + BigUInt(2)
            let a = number(6, &generator)
            if let inverse = a.inverse(modulo: m) {
                #expect((a * inverse) % m == .one)
            } else {
                #expect(BigUInt.gcd(a, m) != .one)
            }
        }
    }

    @Test("Miller–Rabin: known primes pass, Carmichael numbers and products of two primes fail")
    func primality() {
        var generator = SeededGenerator(seed: 7)
        // 2^127 − 1 and 2^521 − 1 are Mersenne primes.
        for bits in [127, 521] {
            #expect(RSAPrimes.isProbablePrime((BigUInt.one << bits) - .one, rounds: 5, using: &generator))
        }
        for composite: UInt64 in [561, 41041, 825_265, 321_197_185, 4_294_967_297, 1_000_000_007 * 998_244_353] {
            #expect(!RSAPrimes.isProbablePrime(BigUInt(composite), rounds: 5, using: &generator), "\(composite)")
        }
    }

    /// The one test that makes a key: RSA-2048 from a seeded generator, so it is the same
    /// key and about the same work every run (debug builds take seconds; the time is printed).
    @Test("a generated 2048-bit key is consistent, signs and verifies, and round-trips its encodings")
    func generatedKey() throws {
        var generator = SeededGenerator(seed: 2048)
        let start = Date()
        let key = try RSAPrivateKey.generate(bits: 2048, using: &generator)
        print("RSATests.generatedKey: RSA-2048 generated in \(Date().timeIntervalSince(start)) s")
        #expect(key.publicKey.bitCount == 2048)
        #expect(key.publicKey.publicExponentBytes == [0x01, 0x00, 0x01])
        let message = Array("iapsim TEST ONLY".utf8)
        let signature = key.signature(for: message)
        #expect(signature.count == 256)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
        var altered = signature
        altered[100] ^= 1
        #expect(!key.publicKey.isValidSignature(altered, for: message))
        let reread = try RSAPrivateKey(pemRepresentation: key.pemRepresentation)
        #expect(reread.signature(for: message) == signature)
        #expect(try RSAPrivateKey(pemRepresentation: key.pkcs1PEMRepresentation).publicKey == key.publicKey)
        #expect(try RSAPublicKey(pemRepresentation: key.publicKey.pemRepresentation) == key.publicKey)
    }

    @Test("a key whose parts do not fit together is refused with a reason")
    func inconsistentKey() throws {
        let key = try RSAPrivateKey(pemRepresentation: RSAFixture.keyPEM)
        var broken = key.pkcs1DERRepresentation
        broken[broken.count - 1] ^= 1  // the last byte of the CRT coefficient
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pkcs1DERRepresentation: broken) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(derRepresentation: key.derRepresentation) }
    }

    @Test("an RSA certificate chain: RSA root signs an RSA leaf, both verify, P-256 keys still certify")
    func certificates() throws {
        let rootKey = try RSAPrivateKey(pemRepresentation: RSAFixture.keyPEM)
        let name = DistinguishedName(commonName: "RSA root (TEST ONLY)", organization: "iapsim TEST ONLY")
        let root = try X509CertificateBuilder(
            serialNumber: [1], issuer: name, subject: name, notBefore: Date(timeIntervalSince1970: 0),
            notAfter: Date(timeIntervalSince1970: 4_102_444_800), subjectPublicKey: rootKey.publicKey,
            extensions: [.basicConstraints(isCertificateAuthority: true)]
        ).sign(with: rootKey)
        #expect(root.signatureAlgorithm == .sha256WithRSAEncryption)
        #expect(try root.rsaPublicKey() == rootKey.publicKey)
        #expect(root.isIssued(by: root))
        var generator = SeededGenerator(seed: 3)
        let ecKey = try P256PrivateKey.generate(using: &generator)
        let leafName = DistinguishedName(commonName: "P-256 leaf (TEST ONLY)", organization: "iapsim TEST ONLY")
        let leaf = try X509CertificateBuilder(
            serialNumber: [2], issuer: name, subject: leafName, notBefore: Date(timeIntervalSince1970: 0),
            notAfter: Date(timeIntervalSince1970: 4_102_444_800), subjectPublicKey: ecKey.publicKey
        ).sign(with: rootKey)
        #expect(leaf.isIssued(by: root))
        #expect(!root.isIssued(by: leaf))
        var tampered = leaf.derRepresentation
        tampered[tampered.count - 1] ^= 1
        #expect(!(try X509Certificate(derRepresentation: tampered)).isIssued(by: root))
    }

    @Test("CMS SignedData with an RSA signer verifies, and an altered content does not")
    func cmsSignedData() throws {
        let key = try RSAPrivateKey(pemRepresentation: RSAFixture.keyPEM)
        let name = DistinguishedName(commonName: "RSA signer (TEST ONLY)", organization: "iapsim TEST ONLY")
        let certificate = try X509CertificateBuilder(
            serialNumber: [9], issuer: name, subject: name, notBefore: Date(timeIntervalSince1970: 0),
            notAfter: Date(timeIntervalSince1970: 4_102_444_800), subjectPublicKey: key.publicKey
        ).sign(with: key)
        let content = Array("receipt payload".utf8)
        let der = try CMSSignedData.sign(content: content, signer: certificate, key: key, certificates: [certificate])
        let container = try CMSSignedData(derRepresentation: der)
        #expect(container.signatureAlgorithm == .sha256WithRSAEncryption)
        #expect(container.isSignatureValid)
        let index = try #require(der.indices.first { der[$0...].starts(with: content) })
        var altered = der
        altered[index] ^= 1
        #expect(!(try CMSSignedData(derRepresentation: altered)).isSignatureValid)
    }
}

/// A committed RSA-2048 key, TEST ONLY, so tests that need a key do not wait for one to be made
/// in a debug build (made with `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`).
enum RSAFixture {
    static let keyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQDTnTmTRbURLm3L
        o4+KZEcDl1yHhD0vQVV+sydze/ZEzJfljwX3lF/17+7T/nJ35BUU++Q+SS0lQDDO
        8/g0JFazpkfcW7+R6CF3TNTSk52/qq/r918wUKOelQJkpewDhtwCgDYG8bXRLvw1
        eIVnVt3AEXXYI9K8QWKrnjjxBoz/B9AGJfCHl18tWULuxb4kgUE8msVQZGcEJMY5
        uffsDAHY5v+lP06ZESeryXPUyY3gtEh+heqY8gfweZq9QzbXsffYocP2Pg4sdPIq
        dCVgAtVxRg9XiWcU6T2YZqlSKrpjEsR5k6IZMS050jFSYkyJpQzicNIOQBzOjiY9
        j4EQ+3pZAgMBAAECggEAT+/aAnh4FCPyRNUl0XTc4I3qXaTGChZHigN6GSVQG6Af
        lw9mhSYu87Pth3ZcXk6x6gnXJ/IzlBlB9sNxVJ0PhXCAP80GukKydaL32A38Lp13
        NA9vjUxA6pRGYafN1m04qdct0YS4FmuFyVscJbPKM5ZE6l9p6URX1hWAVAgR9foY
        nr7hlTcqkxqwLBrZl0PVen1RqTAzu3aDEJH/5mjA/yqVTFJxhaLbk8dJU0LOyPGt
        Bu+NxvqAybAz3PF1Lk8nk5Dx7BIFXthJ01JsqCGTIXh9sWKweEoaBf5Svv3XEg7c
        GjLjShNthFG3BAmVbUP2eiIIo+JPYmUqwiggbJNhwwKBgQD8WMCVDW1Zb2CS+0TM
        FkGYLrpWBHCVCtq10uX26XZFTp7MEi+JHKsu5p+sTm3fvAYnlJEH3D/9/3zGoSuM
        CUCdJOHg8ml2esRkqNIn4rNFcfa7PBrK0iHdXCoVcQXWsa4BaqNtDUA+HYgyT/c4
        elGGB28NzIXjQgVyry7J/KBwswKBgQDWrYJ5MLTOsMIpuxWh+IS35RxKWrm+DPm7
        XnzY9iC/a768y/lz3aYbnJ+y3mcd2flc3kP8HOW+rfwqjSzb9qOMoUk2Lhafsv8B
        iyoRsIQAs0idoDKha8y5WG/2n/nbGyTIQlZCiARmQ5jN8KwtwMDjQQXtCpiukUzv
        hMW/kTDWwwKBgQCIQHurf1Z9pc+lTRq2f4XnX8Oo0jjfoL660ibtDN2ZSnwff+o+
        xEYByvCIHsjgtyszj9pHPjsnMB31OezDbfN/Zfy4cutS17LXDvh6JMPbSU+JhUiK
        Hq++UBdBAIfAhquHhEa9iRwY7eUuFVNNIW6HSdhCwR3BuVIrvD8tPMR8VQKBgQCm
        Atd60GeBzr7Xdo1sC7rWWp5eAXrRtUcJ1i/Ft8/rN27woOvu5eCmSaBVuhcTxpRH
        dLouJEqmAfWXEkU2dKxU/ASZmVp1dP4uO2f09gOeZwYontGIcsyGKBWtKlkVTxBK
        rMH4ASclzfBEkXEUkJKZKpdij2cy17ofHxWs5qJV8QKBgQCf6yZ5EJwcYrCkb6u5
        lRKS9mnDbHDFJt4LyVAvjw8XlqXgb29kQSn6s6eXlGgqc392lmBQl8p7xFOWJTNn
        5k4/5oxT87CjCXXuEZ3d/4e08AnqJjAlXYQ3VPe97fSZpktOmTArz6bBzAMnBjKs
        OlO5BJiu4kfJYNkMrYd21tfrwg==
        -----END PRIVATE KEY-----
        """
}
