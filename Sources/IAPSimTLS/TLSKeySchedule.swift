import IAPSimCrypto

/// The TLS 1.3 key schedule for SHA-256 suites (RFC 8446 §7.1): HKDF-Expand-Label,
/// Derive-Secret, the early/handshake/master chain, and the keys each traffic secret gives.
///
/// Hand-written, for test data only.
enum TLSKeySchedule {
    static let hashByteCount = SHA256.byteCount
    /// SHA-256 of nothing, the context of the two "derived" steps.
    static let emptyHash = SHA256.hash([UInt8]())
    private static let zeros = [UInt8](repeating: 0, count: hashByteCount)

    /// HKDF-Expand-Label(secret, label, context, length) with the "tls13 " prefix.
    ///
    /// Every length TLS asks for is at most one SHA-256 block, so the expansion is one HMAC
    /// (and cannot fail).
    static func expandLabel(secret: [UInt8], label: String, context: [UInt8], length: Int) -> [UInt8] {
        precondition(length > 0 && length <= hashByteCount, "TLS 1.3 with SHA-256 expands at most 32 bytes")
        var info = [UInt8]()
        info.appendUInt16(UInt16(length))
        info.appendVector(lengthBytes: 1) { $0.append(contentsOf: Array("tls13 \(label)".utf8)) }
        info.appendVector(lengthBytes: 1) { $0.append(contentsOf: context) }
        info.append(1)
        return Array(HMACSHA256.authenticationCode(for: info, key: secret).prefix(length))
    }

    /// Derive-Secret(secret, label, messages), given the transcript hash of the messages.
    static func deriveSecret(_ secret: [UInt8], label: String, transcriptHash: [UInt8]) -> [UInt8] {
        expandLabel(secret: secret, label: label, context: transcriptHash, length: hashByteCount)
    }

    /// HKDF-Extract(0, 0): the early secret when no PSK is used.
    static let earlySecret = HKDFSHA256.extract(salt: zeros, inputKeyMaterial: zeros)

    /// HKDF-Extract(Derive-Secret(early, "derived", ""), (EC)DHE).
    static func handshakeSecret(sharedSecret: [UInt8]) -> [UInt8] {
        let salt = deriveSecret(earlySecret, label: "derived", transcriptHash: emptyHash)
        return HKDFSHA256.extract(salt: salt, inputKeyMaterial: sharedSecret)
    }

    /// HKDF-Extract(Derive-Secret(handshake, "derived", ""), 0).
    static func masterSecret(handshakeSecret: [UInt8]) -> [UInt8] {
        let salt = deriveSecret(handshakeSecret, label: "derived", transcriptHash: emptyHash)
        return HKDFSHA256.extract(salt: salt, inputKeyMaterial: zeros)
    }

    /// The AES-128-GCM key and the 12-byte IV of a traffic secret (§7.3).
    static func trafficKeys(secret: [UInt8]) -> (key: [UInt8], iv: [UInt8]) {
        (
            expandLabel(secret: secret, label: "key", context: [], length: 16),
            expandLabel(secret: secret, label: "iv", context: [], length: 12)
        )
    }

    /// The key a Finished message is the HMAC under (§4.4.4).
    static func finishedKey(secret: [UInt8]) -> [UInt8] {
        expandLabel(secret: secret, label: "finished", context: [], length: hashByteCount)
    }

    /// verify_data = HMAC(finished_key, transcript hash).
    static func finishedVerifyData(secret: [UInt8], transcriptHash: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(for: transcriptHash, key: finishedKey(secret: secret))
    }

    /// application_traffic_secret_N+1 after a KeyUpdate (§7.2).
    static func nextTrafficSecret(_ secret: [UInt8]) -> [UInt8] {
        expandLabel(secret: secret, label: "traffic upd", context: [], length: hashByteCount)
    }
}
