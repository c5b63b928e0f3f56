/// The record content types (RFC 8446 §5.1).
enum TLSContentType: UInt8 {
    case changeCipherSpec = 20
    case alert = 21
    case handshake = 22
    case applicationData = 23
}

/// Limits of the record layer (RFC 8446 §5.1–5.2).
enum TLSRecordLimits {
    /// The largest plaintext fragment: 2¹⁴ bytes.
    static let maximumPlaintext = 1 << 14
    /// The largest protected record body: 2¹⁴ + 256 bytes.
    static let maximumCiphertext = (1 << 14) + 256
    /// The five-byte record header: type, legacy version, length.
    static let headerByteCount = 5
}
