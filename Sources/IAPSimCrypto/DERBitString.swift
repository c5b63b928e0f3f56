/// The value of a BIT STRING: whole bytes plus how many trailing bits of the last are unused.
public struct DERBitString: Equatable, Sendable {
    /// The bits, packed most significant first.
    public let bytes: [UInt8]
    /// Unused low-order bits in the last byte (0...7); DER requires them to be zero.
    public let unusedBitCount: Int

    /// Creates a bit string; the unused bits of the last byte are cleared so the value is DER.
    public init(bytes: [UInt8], unusedBitCount: Int = 0) {
        let unused = bytes.isEmpty ? 0 : Swift.min(Swift.max(unusedBitCount, 0), 7)
        var bytes = bytes
        if let last = bytes.last {
            bytes[bytes.count - 1] = last & ~UInt8((1 << unused) - 1)
        }
        self.bytes = bytes
        self.unusedBitCount = unused
    }
}
