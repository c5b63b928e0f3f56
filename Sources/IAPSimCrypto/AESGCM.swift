/// AES-GCM authenticated encryption (NIST SP 800-38D) with 16-byte tags: the record
/// protection of TLS_AES_128_GCM_SHA256.
///
/// Hand-written, for test data only (the AES and GHASH tables are not constant-time); the tag
/// check is, through `ConstantTime`. Any nonce length of at least one byte works as the
/// standard defines, though TLS only ever uses 12 bytes, the fast path.
public struct AESGCM: Sendable {
    /// The length of an authentication tag in bytes.
    public static let tagByteCount = 16

    let cipher: AESBlockCipher
    let hash: GHASH

    /// Prepares the cipher and the hash tables for `key` (16, 24 or 32 bytes).
    /// - Throws: `CryptoError.invalidKeyLength` for any other length.
    public init(key: some Collection<UInt8>) throws(CryptoError) {
        let cipher = try AESBlockCipher(key: key)
        self.cipher = cipher
        var zero = (UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &zero) { cipher.encrypt($0.baseAddress!, into: $0.baseAddress!) }
        hash = GHASH(key: GHASH.Element(high: UInt64(bigEndian: zero.0), low: UInt64(bigEndian: zero.1)))
    }

    /// Encrypts `plaintext` and authenticates it with `authenticatedData`.
    /// - Returns: the ciphertext (as long as the plaintext) and the 16-byte tag.
    /// - Throws: `CryptoError.invalidNonceLength` for an empty nonce.
    public func seal(
        _ plaintext: [UInt8], nonce: [UInt8], authenticating authenticatedData: [UInt8] = []
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        guard !nonce.isEmpty else { throw .invalidNonceLength(0) }
        var ciphertext = plaintext
        var tag = [UInt8](repeating: 0, count: Self.tagByteCount)
        ciphertext.withUnsafeMutableBytes { buffer in
            nonce.withUnsafeBytes { nonce in
                authenticatedData.withUnsafeBytes { aad in
                    tag.withUnsafeMutableBytes { seal(inPlace: buffer, nonce: nonce, authenticating: aad, tag: $0) }
                }
            }
        }
        return (ciphertext, tag)
    }

    /// Checks the tag and decrypts.
    /// - Returns: the plaintext.
    /// - Throws: `CryptoError.authenticationFailure` when the tag does not match (or is not 16
    ///   bytes), `CryptoError.invalidNonceLength` for an empty nonce.
    public func open(
        _ ciphertext: [UInt8], tag: [UInt8], nonce: [UInt8], authenticating authenticatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        guard !nonce.isEmpty else { throw .invalidNonceLength(0) }
        guard tag.count == Self.tagByteCount else { throw .authenticationFailure }
        var plaintext = ciphertext
        let valid = plaintext.withUnsafeMutableBytes { buffer in
            nonce.withUnsafeBytes { nonce in
                authenticatedData.withUnsafeBytes { aad in
                    tag.withUnsafeBytes { open(inPlace: buffer, nonce: nonce, authenticating: aad, tag: $0) }
                }
            }
        }
        guard valid else { throw .authenticationFailure }
        return plaintext
    }

    /// Encrypts `buffer` in place and writes the 16-byte tag to `tag`: the allocation-free
    /// form a record layer uses. `nonce` must not be empty.
    public func seal(
        inPlace buffer: UnsafeMutableRawBufferPointer, nonce: UnsafeRawBufferPointer,
        authenticating authenticatedData: UnsafeRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) {
        let counter = initialCounter(nonce)
        crypt(buffer, from: counter)
        var computed = authenticationTag(
            counter: counter, authenticatedData: authenticatedData, ciphertext: UnsafeRawBufferPointer(buffer))
        withUnsafeBytes(of: &computed) { tag.copyMemory(from: $0) }
    }

    /// Checks `tag` over `buffer` (the ciphertext) and, when it matches, decrypts `buffer` in
    /// place. A buffer whose tag does not match is left as it was.
    /// - Returns: whether the tag matched (compared in constant time).
    public func open(
        inPlace buffer: UnsafeMutableRawBufferPointer, nonce: UnsafeRawBufferPointer,
        authenticating authenticatedData: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer
    ) -> Bool {
        guard tag.count == Self.tagByteCount else { return false }
        let counter = initialCounter(nonce)
        var expected = authenticationTag(
            counter: counter, authenticatedData: authenticatedData, ciphertext: UnsafeRawBufferPointer(buffer))
        let valid = withUnsafeBytes(of: &expected) { ConstantTime.equals($0, tag) }
        if valid { crypt(buffer, from: counter) }
        return valid
    }

    /// J₀: the nonce ‖ 0³¹1 for 12-byte nonces, GHASH of the padded nonce and its length otherwise.
    private func initialCounter(_ nonce: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        var block = (UInt64(0), UInt64(0))
        if nonce.count == 12 {
            withUnsafeMutableBytes(of: &block) {
                $0.copyMemory(from: nonce)
                $0[15] = 1
            }
            return block
        }
        var state = GHASH.Element(high: 0, low: 0)
        hash.update(&state, with: nonce)
        state.low ^= UInt64(nonce.count) &* 8
        state = hash.multiply(state)
        return (state.high.bigEndian, state.low.bigEndian)
    }

    /// XORs the key stream E(K, inc32(J₀)), E(K, inc32²(J₀)), … into `buffer`.
    private func crypt(_ buffer: UnsafeMutableRawBufferPointer, from initial: (UInt64, UInt64)) {
        guard let base = buffer.baseAddress else { return }
        var counter = initial
        var stream = (UInt64(0), UInt64(0))
        var counterWord = withUnsafeBytes(of: &counter) {
            UInt32(bigEndian: $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        }
        var offset = 0
        withUnsafeMutableBytes(of: &counter) { counterBytes in
            withUnsafeMutableBytes(of: &stream) { streamBytes in
                let streamBase = streamBytes.baseAddress!
                while offset < buffer.count {
                    counterWord &+= 1
                    counterBytes.storeBytes(of: counterWord.bigEndian, toByteOffset: 12, as: UInt32.self)
                    cipher.encrypt(counterBytes.baseAddress!, into: streamBase)
                    let take = min(16, buffer.count - offset)
                    if take == 16 {
                        let a = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        let b = base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
                        base.storeBytes(of: a ^ streamBase.load(as: UInt64.self), toByteOffset: offset, as: UInt64.self)
                        base.storeBytes(
                            of: b ^ streamBase.load(fromByteOffset: 8, as: UInt64.self), toByteOffset: offset + 8,
                            as: UInt64.self)
                    } else {
                        for index in 0..<take {
                            buffer[offset + index] ^= streamBytes[index]
                        }
                    }
                    offset += take
                }
            }
        }
    }

    /// E(K, J₀) ⊕ GHASH(A ‖ pad ‖ C ‖ pad ‖ len(A) ‖ len(C)).
    private func authenticationTag(
        counter: (UInt64, UInt64), authenticatedData: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer
    ) -> (UInt64, UInt64) {
        var state = GHASH.Element(high: 0, low: 0)
        hash.update(&state, with: authenticatedData)
        hash.update(&state, with: ciphertext)
        state.high ^= UInt64(authenticatedData.count) &* 8
        state.low ^= UInt64(ciphertext.count) &* 8
        state = hash.multiply(state)
        var mask = counter
        withUnsafeMutableBytes(of: &mask) { cipher.encrypt($0.baseAddress!, into: $0.baseAddress!) }
        return (state.high.bigEndian ^ mask.0, state.low.bigEndian ^ mask.1)
    }
}
