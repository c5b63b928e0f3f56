/// A P-256 public key: a validated point on the curve (never infinity), used to verify
/// ECDSA signatures.
public struct P256PublicKey: Sendable, Hashable {
    let point: P256AffinePoint
    /// The SEC 1 uncompressed encoding 04‖X‖Y (65 bytes).
    public let x963Representation: [UInt8]

    init(point: P256AffinePoint) {
        self.point = point
        x963Representation = point.uncompressed
    }

    /// Reads the SEC 1 uncompressed form 04‖X‖Y and validates the point (coordinates below
    /// p, on the curve; infinity has no such encoding).
    /// - Throws: `CryptoError.invalidPublicKey`.
    public init(x963Representation: some Collection<UInt8>) throws(CryptoError) {
        self.init(point: try P256AffinePoint(uncompressed: Array(x963Representation)))
    }

    /// Reads X‖Y (64 bytes, as JWK's x and y concatenated) and validates the point.
    /// - Throws: `CryptoError.invalidPublicKey`.
    public init(rawRepresentation: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(rawRepresentation)
        guard bytes.count == 64 else {
            throw .invalidPublicKey("a raw P-256 public key is 64 bytes, not \(bytes.count)")
        }
        try self.init(x963Representation: [0x04] + bytes)
    }

    /// X‖Y (64 bytes).
    public var rawRepresentation: [UInt8] { Array(x963Representation.dropFirst()) }

    /// Verifies an ECDSA signature over SHA-256(`message`).
    public func isValidSignature(_ signature: ECDSASignature, for message: some Sequence<UInt8>) -> Bool {
        isValidSignature(signature, digest: SHA256.hash(message))
    }

    /// Verifies an ECDSA signature over a 32-byte SHA-256 digest (SEC 1 §4.1.4); a digest of
    /// any other length is rejected.
    public func isValidSignature(_ signature: ECDSASignature, digest: some Collection<UInt8>) -> Bool {
        let digestBytes = Array(digest)
        guard digestBytes.count == SHA256.byteCount else { return false }
        guard let r = P256Scalar(integer: signature.r), !r.isZero,
            let s = P256Scalar(integer: signature.s), !s.isZero
        else { return false }
        let e = P256Scalar(digest: digestBytes)
        let w = s.inverted
        let sum = P256LinearCombination.compute(u1: e * w, u2: r * w, q: point)
        guard !sum.isInfinity else { return false }
        // x(R) mod n == r without inverting Z: x(R) = X/Z², and x(R) < p < 2n means x(R) is
        // either r itself or r + n (only possible when r + n < p).
        let zSquared = sum.z.squared
        guard let rField = P256FieldElement(integer: r.value) else { return false }
        if sum.x == rField * zSquared { return true }
        let (carry, rPlusN) = UInt256.add(r.value, P256Scalar.order)
        guard carry == 0, let rPlusNField = P256FieldElement(integer: rPlusN) else { return false }
        return sum.x == rPlusNField * zSquared
    }

    /// Keys are equal when they are the same point.
    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.x963Representation == rhs.x963Representation
    }

    /// Hashes the uncompressed point.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(x963Representation)
    }
}
