import IAPSimCrypto

/// One direction's AEAD record protection under TLS_AES_128_GCM_SHA256 (RFC 8446 §5.2–5.3):
/// the key and IV of a traffic secret, and the 64-bit sequence number XORed into the nonce.
///
/// Hand-written, for test data only. Records are sealed and opened in place, so a record
/// costs no allocation beyond the output it is appended to.
struct TLSRecordProtection {
    private let aead: AESGCM
    private let iv: [UInt8]
    /// The number of records sealed or opened so far.
    private(set) var sequenceNumber: UInt64 = 0

    /// Derives the key and IV from `secret`.
    init(secret: [UInt8]) {
        let keys = TLSKeySchedule.trafficKeys(secret: secret)
        self.init(key: keys.key, iv: keys.iv)
    }

    /// Uses a key and IV as given (the RFC 8448 trace prints them).
    init(key: [UInt8], iv: [UInt8]) {
        // A 16-byte key is always accepted.
        aead = (try? AESGCM(key: key)) ?? { preconditionFailure("AES-128 keys are 16 bytes") }()
        self.iv = iv
    }

    /// The per-record nonce: the IV XOR the big-endian sequence number, right-aligned.
    private func nonce() -> [UInt8] {
        var nonce = iv
        for index in 0..<8 {
            nonce[4 + index] ^= UInt8(truncatingIfNeeded: sequenceNumber >> (8 * UInt64(7 - index)))
        }
        return nonce
    }

    /// Appends one protected record (outer type application_data) holding `content` of the
    /// inner `type`, with no padding. `content` must be at most 2¹⁴ bytes.
    mutating func seal(_ content: UnsafeRawBufferPointer, type: TLSContentType, into output: inout [UInt8]) {
        let length = content.count + 1 + AESGCM.tagByteCount
        let start = output.count
        let needed = start + TLSRecordLimits.headerByteCount + length
        // Grow geometrically: an exact reservation per record would copy the output each time.
        if output.capacity < needed { output.reserveCapacity(max(needed, 2 * output.capacity)) }
        output.append(TLSContentType.applicationData.rawValue)
        output.append(contentsOf: [0x03, 0x03])
        output.appendUInt16(UInt16(length))
        output.append(contentsOf: content)
        output.append(type.rawValue)
        output.append(contentsOf: repeatElement(0, count: AESGCM.tagByteCount))
        let nonce = nonce()
        output.withUnsafeMutableBytes { record in
            let header = UnsafeRawBufferPointer(rebasing: record[start..<(start + 5)])
            let bodyStart = start + 5
            let tagStart = bodyStart + content.count + 1
            nonce.withUnsafeBytes { nonce in
                aead.seal(
                    inPlace: UnsafeMutableRawBufferPointer(rebasing: record[bodyStart..<tagStart]), nonce: nonce,
                    authenticating: header,
                    tag: UnsafeMutableRawBufferPointer(rebasing: record[tagStart..<(tagStart + AESGCM.tagByteCount)]))
            }
        }
        sequenceNumber &+= 1
    }

    /// Seals `content` from an array.
    mutating func seal(_ content: [UInt8], type: TLSContentType, into output: inout [UInt8]) {
        content.withUnsafeBytes { seal($0, type: type, into: &output) }
    }

    /// Opens a protected record in place: `body` holds the ciphertext and tag, `header` the
    /// five header bytes (the additional data). On success `body` starts with the inner
    /// content; padding and the inner type byte are stripped.
    /// - Returns: the inner type and content length.
    /// - Throws: bad_record_mac when the tag fails, record_overflow for an inner plaintext
    ///   over 2¹⁴ + 1 bytes, unexpected_message when the padding holds no type.
    mutating func open(_ body: inout [UInt8], count: Int, header: [UInt8]) throws(TLSFailure) -> (
        type: UInt8, length: Int
    ) {
        guard count >= AESGCM.tagByteCount else { throw TLSFailure(.badRecordMAC, "a record is shorter than its tag") }
        let plaintextCount = count - AESGCM.tagByteCount
        let nonce = nonce()
        let valid = body.withUnsafeMutableBytes { record in
            nonce.withUnsafeBytes { nonce in
                header.withUnsafeBytes { header in
                    aead.open(
                        inPlace: UnsafeMutableRawBufferPointer(rebasing: record[0..<plaintextCount]), nonce: nonce,
                        authenticating: header,
                        tag: UnsafeRawBufferPointer(rebasing: record[plaintextCount..<count]))
                }
            }
        }
        guard valid else { throw TLSFailure(.badRecordMAC, "a record did not authenticate") }
        sequenceNumber &+= 1
        guard plaintextCount <= TLSRecordLimits.maximumPlaintext + 1 else {
            throw TLSFailure(.recordOverflow, "a record's inner plaintext is \(plaintextCount) bytes")
        }
        var end = plaintextCount
        while end > 0, body[end - 1] == 0 { end -= 1 }
        guard end > 0 else { throw TLSFailure(.unexpectedMessage, "a record holds only padding") }
        return (body[end - 1], end - 1)
    }
}
