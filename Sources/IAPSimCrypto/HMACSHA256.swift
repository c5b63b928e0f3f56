/// HMAC with SHA-256 (RFC 2104), streaming and one-shot.
public struct HMACSHA256: Sendable {
    /// Length of a full authentication code in bytes.
    public static let byteCount = SHA256.byteCount
    /// Shortest truncated tag `isValidAuthenticationCode` accepts (RFC 2104 §5: at least half).
    public static let minimumTagByteCount = 16

    private var inner = SHA256()
    private var outer = SHA256()

    /// Starts a MAC computation under `key` (any length; keys over 64 bytes are hashed first).
    ///
    /// Both padded key blocks are hashed here, so a keyed value copied for each message (as
    /// RFC 6979's HMAC-DRBG does) pays for them once per key rather than once per code.
    public init(key: some Sequence<UInt8>) {
        var keyBytes = Array(key)
        if keyBytes.count > SHA256.blockByteCount {
            keyBytes = SHA256.hash(keyBytes)
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256.blockByteCount) { pad in
            pad.initialize(repeating: 0x36)
            for (index, byte) in keyBytes.enumerated() { pad[index] ^= byte }
            inner.update(bufferPointer: UnsafeRawBufferPointer(pad))
            for index in pad.indices { pad[index] ^= 0x36 ^ 0x5c }
            outer.update(bufferPointer: UnsafeRawBufferPointer(pad))
        }
    }

    /// Feeds more message bytes.
    public mutating func update(_ data: some Sequence<UInt8>) {
        inner.update(data)
    }

    /// Returns the 32-byte code for everything fed so far; the MAC itself is left unchanged.
    public func finalize() -> [UInt8] {
        var outerCopy = outer
        outerCopy.update(inner.finalize())
        return outerCopy.finalize()
    }

    /// Computes the 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(for message: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        mac.update(message)
        return mac.finalize()
    }

    /// Checks `tag` against the code of `message` in constant time.
    ///
    /// A tag shorter than 32 bytes is compared with the leading bytes of the code (truncated
    /// HMAC, RFC 2104 §5); tags under 16 bytes are refused because they are too easy to guess.
    /// - Returns: true when `tag` is the code or an allowed truncation of it.
    public static func isValidAuthenticationCode(
        _ tag: some Collection<UInt8>, for message: some Sequence<UInt8>, key: some Sequence<UInt8>
    ) -> Bool {
        guard tag.count >= minimumTagByteCount, tag.count <= byteCount else { return false }
        let code = authenticationCode(for: message, key: key)
        return ConstantTime.equals(code.prefix(tag.count), tag)
    }
}
