/// A cursor over a TLS message body (RFC 8446 §3): big-endian integers and length-prefixed
/// vectors. Running past the end, or a vector longer than what holds it, is a decode_error.
struct TLSByteReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    var isAtEnd: Bool { position == bytes.endIndex }
    var remainingCount: Int { bytes.endIndex - position }

    mutating func readUInt8() throws(TLSFailure) -> UInt8 {
        guard position < bytes.endIndex else { throw TLSFailure(.decodeError, "a message ended early") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readUInt16() throws(TLSFailure) -> UInt16 {
        UInt16(try readUInt8()) << 8 | UInt16(try readUInt8())
    }

    mutating func readUInt24() throws(TLSFailure) -> Int {
        Int(try readUInt8()) << 16 | Int(try readUInt8()) << 8 | Int(try readUInt8())
    }

    /// The next `count` bytes.
    mutating func readBytes(_ count: Int) throws(TLSFailure) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remainingCount else {
            throw TLSFailure(.decodeError, "a field runs past its message")
        }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// A vector with a one-byte length.
    mutating func readVector8() throws(TLSFailure) -> TLSByteReader {
        TLSByteReader(try readBytes(Int(try readUInt8())))
    }

    /// A vector with a two-byte length.
    mutating func readVector16() throws(TLSFailure) -> TLSByteReader {
        TLSByteReader(try readBytes(Int(try readUInt16())))
    }

    /// What is left, as bytes.
    mutating func readRest() -> ArraySlice<UInt8> {
        defer { position = bytes.endIndex }
        return bytes[position...]
    }

    /// Throws unless everything was read: trailing bytes are a decode_error.
    func finish(_ what: String) throws(TLSFailure) {
        guard isAtEnd else { throw TLSFailure(.decodeError, "\(what) has \(remainingCount) trailing bytes") }
    }
}

/// Appending TLS's big-endian integers and length-prefixed vectors.
extension Array where Element == UInt8 {
    mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendUInt24(_ value: Int) {
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends `body`'s bytes behind a length of `lengthBytes` (1, 2 or 3) bytes.
    mutating func appendVector(lengthBytes: Int, _ body: (inout [UInt8]) -> Void) {
        let start = count
        append(contentsOf: repeatElement(0, count: lengthBytes))
        body(&self)
        let length = count - start - lengthBytes
        for index in 0..<lengthBytes {
            self[start + index] = UInt8(truncatingIfNeeded: length >> (8 * (lengthBytes - 1 - index)))
        }
    }
}
