/// An RSA private key (n, e, d, p, q and the CRT values) that signs with RSASSA-PKCS1-v1_5
/// and SHA-256 (RFC 8017 §8.2.1), the algorithm Apple signs app receipts with.
///
/// The arithmetic is variable time (`BigUInt`): these keys sign test data only and are
/// labelled TEST ONLY wherever they are stored.
public struct RSAPrivateKey: Sendable {
    /// The matching public key (n, e).
    public let publicKey: RSAPublicKey
    let privateExponent: BigUInt
    let prime1: BigUInt
    let prime2: BigUInt
    let exponent1: BigUInt
    let exponent2: BigUInt
    let coefficient: BigUInt
    private let montgomeryP: MontgomeryModulus
    private let montgomeryQ: MontgomeryModulus

    /// The public exponent iapsim's keys use (F4, as `openssl genpkey` does).
    public static let defaultPublicExponent: UInt64 = 65_537

    /// Checks that the parts form one key (RFC 8017 §3.2): n = p·q, d·e ≡ 1 modulo p − 1 and
    /// q − 1, dP = d mod (p − 1), dQ = d mod (q − 1), qInv·q ≡ 1 mod p.
    init(
        modulus n: BigUInt, publicExponent e: BigUInt, privateExponent d: BigUInt, prime1 p: BigUInt,
        prime2 q: BigUInt, exponent1 dP: BigUInt, exponent2 dQ: BigUInt, coefficient qInv: BigUInt
    ) throws(CryptoError) {
        publicKey = try RSAPublicKey(modulus: n, publicExponent: e)
        guard p > .one, q > .one, p.isOdd, q.isOdd, p * q == n else {
            throw .invalidRSAKey("the primes do not multiply to the modulus")
        }
        let (pMinusOne, qMinusOne) = (p - .one, q - .one)
        guard !d.isZero, d < n, (d * e) % pMinusOne == .one, (d * e) % qMinusOne == .one else {
            throw .invalidRSAKey("the private exponent does not invert the public one")
        }
        guard dP == d % pMinusOne, dQ == d % qMinusOne, qInv < p, (qInv * q) % p == .one else {
            throw .invalidRSAKey("the CRT values do not match the primes")
        }
        privateExponent = d
        prime1 = p
        prime2 = q
        exponent1 = dP
        exponent2 = dQ
        coefficient = qInv
        montgomeryP = MontgomeryModulus(p)
        montgomeryQ = MontgomeryModulus(q)
    }

    /// Generates an RSA-2048 key (e = 65537) from the system's cryptographic random source.
    /// Takes a fraction of a second in a release build, several seconds in a debug one.
    /// - Throws: `CryptoError.randomSourceFailed` only if the source is broken.
    public static func generate() throws(CryptoError) -> RSAPrivateKey {
        var generator = SystemRandomNumberGenerator()
        return try generate(bits: 2048, using: &generator)
    }

    /// Generates a key of `bits` bits (a multiple of 128, at least 512) from `generator`: two
    /// probable primes of `bits`/2 bits (`RSAPrimes`) that differ in their top 100 bits
    /// (FIPS 186-5 A.1.3 step 4.5), d = e⁻¹ mod lcm(p − 1, q − 1), and the CRT values.
    public static func generate<Generator: RandomNumberGenerator>(
        bits: Int, using generator: inout Generator
    ) throws(CryptoError) -> RSAPrivateKey {
        guard bits >= 512, bits % 128 == 0 else {
            throw .invalidRSAKey("a key size is a multiple of 128 bits, at least 512, not \(bits)")
        }
        let e = BigUInt(defaultPublicExponent)
        for _ in 0..<16 {
            let p = try RSAPrimes.probablePrime(
                bits: bits / 2, publicExponent: defaultPublicExponent, using: &generator)
            let q = try RSAPrimes.probablePrime(
                bits: bits / 2, publicExponent: defaultPublicExponent, using: &generator)
            let difference = p < q ? q - p : p - q
            guard difference.bitWidth > bits / 2 - 100 else { continue }
            let (pMinusOne, qMinusOne) = (p - .one, q - .one)
            let lambda = (pMinusOne * qMinusOne).quotientAndRemainder(
                dividingBy: BigUInt.gcd(pMinusOne, qMinusOne)
            ).quotient
            guard let d = e.inverse(modulo: lambda), d.bitWidth > bits / 2,
                let qInv = q.inverse(modulo: p)
            else { continue }
            return try RSAPrivateKey(
                modulus: p * q, publicExponent: e, privateExponent: d, prime1: p, prime2: q,
                exponent1: d % pMinusOne, exponent2: d % qMinusOne, coefficient: qInv)
        }
        throw .randomSourceFailed
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `message`: exactly k bytes. Deterministic:
    /// the same key and message always give the same signature.
    public func signature(for message: some Sequence<UInt8>) -> [UInt8] {
        signature(digest: SHA256.hash(message))
    }

    /// The signature of a precomputed SHA-256 digest (RFC 8017 §8.2.1, RSASP1 with the CRT).
    /// - Precondition: `digest` is 32 bytes.
    func signature(digest: [UInt8]) -> [UInt8] {
        let k = publicKey.byteCount
        // k ≥ 62 holds for every key this type accepts (at least 512 bits).
        let encoded = RSASSAPKCS1v15.encode(digest: digest, length: k)!
        let m = BigUInt(bigEndianBytes: encoded)
        let m1 = montgomeryP.power(m % prime1, exponent1)
        let m2 = montgomeryQ.power(m % prime2, exponent2)
        let m2ModP = m2 % prime1
        let difference = m1 < m2ModP ? m1 + prime1 - m2ModP : m1 - m2ModP
        let h = (coefficient * difference) % prime1
        let s = m2 + h * prime2
        return s.bigEndianBytes(count: k)!
    }
}
