/// Random probable primes for RSA keys (FIPS 186-5 appendix A.1.3 and B.3, simplified):
/// random odd candidates with the top two bits set, a small-prime sieve, then Miller–Rabin.
enum RSAPrimes {
    /// Miller–Rabin rounds for the 1024-bit primes of an RSA-2048 key: FIPS 186-5 Table B.1
    /// asks for 5 to keep the error probability below 2^-112 (RSA-2048's security strength).
    static let millerRabinRounds = 5

    /// The odd primes below 2048, for the sieve: a candidate divisible by one is dropped before
    /// any exponentiation (about 85% of odd candidates).
    static let smallPrimes: [UInt64] = {
        let limit = 2048
        var composite = [Bool](repeating: false, count: limit)
        var primes: [UInt64] = []
        for value in 3..<limit where !composite[value] && value % 2 == 1 {
            primes.append(UInt64(value))
            for multiple in stride(from: value * value, to: limit, by: value) { composite[multiple] = true }
        }
        return primes
    }()

    /// A random probable prime of exactly `bits` bits (a multiple of 64) whose top two bits
    /// are set, so that two of them multiply to exactly 2·`bits` bits, and with p − 1 prime to
    /// `publicExponent` (itself prime).
    /// - Throws: `CryptoError.randomSourceFailed` after far more candidates than a working
    ///   random source ever needs (about 360 on average for 1024 bits).
    static func probablePrime<Generator: RandomNumberGenerator>(
        bits: Int, publicExponent: UInt64, using generator: inout Generator
    ) throws(CryptoError) -> BigUInt {
        precondition(bits >= 128 && bits % 64 == 0, "prime sizes here are whole limbs")
        for _ in 0..<100_000 {
            var limbs = (0..<bits / 64).map { _ in generator.next() as UInt64 }
            limbs[limbs.count - 1] |= 0xC000_0000_0000_0000
            limbs[0] |= 1
            let candidate = BigUInt(limbs: limbs)
            guard !smallPrimes.contains(where: { candidate.remainder(dividingBy: $0) == 0 }),
                candidate.remainder(dividingBy: publicExponent) != 1
            else { continue }
            if isProbablePrime(candidate, rounds: millerRabinRounds, using: &generator) { return candidate }
        }
        throw .randomSourceFailed
    }

    /// Miller–Rabin (FIPS 186-5 appendix B.3.1) with `rounds` random bases in [2, w − 2].
    /// - Precondition: `w` is odd and above 3.
    static func isProbablePrime<Generator: RandomNumberGenerator>(
        _ w: BigUInt, rounds: Int, using generator: inout Generator
    ) -> Bool {
        let wMinusOne = w - .one
        var a = 0
        while !wMinusOne.bit(a) { a += 1 }
        let m = wMinusOne >> a
        let modulus = MontgomeryModulus(w)
        let minusOne = modulus.toMontgomery(wMinusOne)
        let one = modulus.montgomeryOne
        let limbCount = w.limbs.count
        for _ in 0..<rounds {
            // A base in [2, w − 2]: random limbs reduced into range (the slight bias is harmless).
            let random = BigUInt(limbs: (0..<limbCount).map { _ in generator.next() as UInt64 })
            let base = random % (w - BigUInt(3)) + BigUInt(2)
            var z = modulus.toMontgomery(modulus.power(base, m))
            if z == one || z == minusOne { continue }
            var witnessed = true
            for _ in 1..<max(a, 1) {
                z = modulus.multiply(z, z)
                if z == minusOne {
                    witnessed = false
                    break
                }
                if z == one { return false }
            }
            if witnessed { return false }
        }
        return true
    }
}
