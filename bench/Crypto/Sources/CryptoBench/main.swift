import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import IAPSimCrypto
import IAPSimKit

// Times ES256 as iapsim signs a JWS: SHA-256 of a ~1 KB signing input, then ECDSA P-256 sign
// (RFC 6979 nonce) or verify; the sign of a digest alone; also a whole signed transaction (payload JSON + header + sign).
// Prints one JSON object of microseconds per operation.
// Usage: CryptoBench [iterations]

let iterations = CommandLine.arguments.dropFirst().compactMap { Int($0) }.first ?? 3000

func microseconds(_ duration: Duration) -> Double {
    (Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18) * 1e6
        / Double(iterations)
}

/// CPU time of this process, as `openssl speed` counts it (user time by default): a busy
/// machine then slows neither side of the comparison more than the other.
struct ProcessCPUClock {
    func measure(_ body: () -> Void) -> Duration {
        func now() -> Duration {
            var time = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
            return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
        }
        let start = now()
        body()
        return now() - start
    }
}
let clock = ProcessCPUClock()
let key = try P256PrivateKey(rawRepresentation: SHA256.hash(Array("bench".utf8)))
_ = key.signature(for: [0])  // builds the base-point table once, as the first signature of a run does
var message = [UInt8](repeating: 0x61, count: 1024)
var signatures: [ECDSASignature] = []
signatures.reserveCapacity(iterations)
let signing = clock.measure {
    for index in 0..<iterations {
        message[0] = UInt8(truncatingIfNeeded: index)
        message[1] = UInt8(truncatingIfNeeded: index >> 8)
        signatures.append(key.signature(for: message))
    }
}
// The ECDSA step alone, as `openssl speed ecdsap256` times it: a digest signed (here with
// RFC 6979's nonce, which costs the HMAC rounds openssl's random nonce does not).
var digest = SHA256.hash(message)
var digestSignatures = 0
let signingDigests = clock.measure {
    for index in 0..<iterations {
        digest[0] = UInt8(truncatingIfNeeded: index)
        digest[1] = UInt8(truncatingIfNeeded: index >> 8)
        if (try? key.signature(digest: digest)) != nil { digestSignatures += 1 }
    }
}
guard digestSignatures == iterations else {
    FileHandle.standardError.write(Data("CryptoBench: \(digestSignatures) of \(iterations) digests signed\n".utf8))
    exit(1)
}
var verified = 0
let verifying = clock.measure {
    for index in 0..<iterations {
        message[0] = UInt8(truncatingIfNeeded: index)
        message[1] = UInt8(truncatingIfNeeded: index >> 8)
        if key.publicKey.isValidSignature(signatures[index], for: message) { verified += 1 }
    }
}
guard verified == iterations else {
    FileHandle.standardError.write(Data("CryptoBench: \(verified) of \(iterations) signatures verified\n".utf8))
    exit(1)
}
let folder = NSTemporaryDirectory() + "iapsim-cryptobench-\(getpid())"
defer { try? FileManager().removeItem(atPath: folder) }
let identity = try SigningIdentity.loadOrCreate(in: folder, lockTimeout: 5)
let transaction = Transaction(
    id: 1, originalID: 1, productID: "com.example.app.pro.monthly", productType: .autoRenewable,
    purchaseDate: Date(timeIntervalSince1970: 1_800_000_000), originalPurchaseDate: Date(timeIntervalSince1970: 1_800_000_000),
    expirationDate: Date(timeIntervalSince1970: 1_802_592_000), subscriptionGroupID: "G", price: Decimal(string: "2.99")!,
    currency: "USD", storefrontCountryCode: "USA")
let context = SigningContext(
    bundleID: "com.example.app", appAppleID: nil, environment: .sandbox, signedDate: Date(timeIntervalSince1970: 1_800_000_000),
    appTransactionID: "700000000000000001")
var length = 0
let whole = clock.measure {
    // Another transaction each time: the same payload again would be answered by the
    // signature memo, not signed.
    for index in 0..<iterations {
        var next = transaction
        next.id = UInt64(index + 1)
        length &+= identity.sign(SignedPayloads.transaction(next, context: context), environment: .sandbox).utf8.count
    }
}
print("{\"sign_us\": \(microseconds(signing)), \"sign_digest_us\": \(microseconds(signingDigests)), \"verify_us\": \(microseconds(verifying)), \"jws_transaction_us\": \(microseconds(whole)), \"jws_length\": \(length / iterations)}")
