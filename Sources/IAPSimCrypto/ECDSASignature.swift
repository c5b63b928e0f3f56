/// An ECDSA P-256 signature (r, s), convertible between the raw 64-byte form r‖s
/// (IEEE P1363, what JWS ES256 uses) and the DER ECDSA-Sig-Value (X.509, openssl).
///
/// Parsing checks only the encoding; whether r and s lie in [1, n-1] is the verifier's
/// business, so such signatures parse and then fail verification.
public struct ECDSASignature: Equatable, Sendable {
    let r: UInt256
    let s: UInt256

    init(r: UInt256, s: UInt256) {
        self.r = r
        self.s = s
    }

    /// Reads r‖s, each a 32-byte big-endian integer.
    /// - Throws: `CryptoError.invalidSignatureEncoding` unless `rawRepresentation` is 64 bytes.
    public init(rawRepresentation: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(rawRepresentation)
        guard bytes.count == 64,
            let r = UInt256(bigEndianBytes: bytes[0..<32]),
            let s = UInt256(bigEndianBytes: bytes[32..<64])
        else { throw .invalidSignatureEncoding("a raw P-256 signature is 64 bytes, not \(bytes.count)") }
        self.init(r: r, s: s)
    }

    /// Reads a strict DER SEQUENCE { INTEGER r, INTEGER s }.
    ///
    /// Rejects BER leniencies (long or indefinite lengths where short ones fit, padded or
    /// negative integers), wrong types, missing or extra elements, trailing bytes, and
    /// integers wider than 256 bits.
    /// - Throws: `CryptoError.invalidSignatureEncoding`.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        do {
            var outer = DERReader(Array(derRepresentation), maximumDepth: 1)
            var sequence = try outer.readSequence()
            try outer.finish()
            let r = try Self.readComponent(&sequence)
            let s = try Self.readComponent(&sequence)
            try sequence.finish()
            self.init(r: r, s: s)
        } catch {
            if case .invalidSignatureEncoding = error { throw error }
            throw .invalidSignatureEncoding(error.errorDescription ?? "malformed DER")
        }
    }

    private static func readComponent(_ reader: inout DERReader) throws(CryptoError) -> UInt256 {
        let magnitude = try reader.readUnsignedInteger()
        guard magnitude.count <= 32 else {
            throw .invalidSignatureEncoding("an integer is wider than 256 bits")
        }
        let padded = [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude
        return UInt256(bigEndianBytes: padded) ?? .zero
    }

    /// r‖s as 64 bytes.
    public var rawRepresentation: [UInt8] { r.bigEndianBytes + s.bigEndianBytes }

    /// The DER SEQUENCE { INTEGER r, INTEGER s }.
    public var derRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { sequence in
            sequence.writeUnsignedInteger(bigEndian: r.bigEndianBytes)
            sequence.writeUnsignedInteger(bigEndian: s.bigEndianBytes)
        }
        return writer.bytes
    }
}
