/// Eight bytes read as one word and tested at once, with the zero-byte test ("Determine if a
/// word has a byte less than n" of Sean Anderson's *Bit Twiddling Hacks*), so that a scanner or
/// the writer steps over a run of plain bytes — identifiers, dates, base64 — eight at a step.
public struct ByteWord {
    public let value: UInt64

    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `offset`, whatever their alignment.
    @inlinable
    public init(_ base: UnsafeRawPointer, at offset: Int) {
        value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }

    /// Whether every byte is below 0x80; the tests below hold for such a word only.
    @inlinable public var isASCII: Bool { value & Self.highs == 0 }

    /// Whether a byte is below `limit` (at most 0x80).
    @inlinable
    public func hasByte(below limit: UInt8) -> Bool {
        (value &- Self.ones &* UInt64(limit)) & ~value & Self.highs != 0
    }

    /// Whether a byte equals `byte`.
    @inlinable
    public func has(_ byte: UInt8) -> Bool {
        let same = value ^ (Self.ones &* UInt64(byte))
        return (same &- Self.ones) & ~same & Self.highs != 0
    }
}
