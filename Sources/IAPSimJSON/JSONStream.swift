/// Writes one JSON document piece by piece, in the layout of `JSONValue.bytes()` (two-space
/// indents), handing the bytes to `sink` in chunks: a 10,000-product list or a long history
/// is never held whole in memory.
public struct JSONStream {
    private var buffer: [UInt8] = []
    private let sink: ([UInt8]) -> Void
    /// Each open container: the byte that closes it, and whether it has a member yet.
    private var open: [(close: UInt8, hasMembers: Bool)] = []
    private static let chunk = 64 * 1024

    /// A document that hands its bytes to `sink`, in order.
    public init(sink: @escaping ([UInt8]) -> Void) {
        self.sink = sink
        buffer.reserveCapacity(Self.chunk + 4096)
    }

    /// Opens an object, as a member `key` of the enclosing object or an element of an array.
    public mutating func beginObject(_ key: String? = nil) {
        separate(key)
        buffer.append(UInt8(ascii: "{"))
        open.append((UInt8(ascii: "}"), false))
    }

    /// Opens an array, as a member `key` of the enclosing object or an element of an array.
    public mutating func beginArray(_ key: String? = nil) {
        separate(key)
        buffer.append(UInt8(ascii: "["))
        open.append((UInt8(ascii: "]"), false))
    }

    /// Writes a whole value.
    public mutating func value(_ value: JSONValue, _ key: String? = nil) {
        separate(key)
        value.write(to: &buffer, indent: open.count)
        if buffer.count >= Self.chunk { flush() }
    }

    /// Writes a whole value as the member `key` of the enclosing object.
    public mutating func value(_ value: JSONValue, _ key: JSONKey) {
        separate(nil)
        buffer.append(contentsOf: key.bytes)
        value.write(to: &buffer, indent: open.count)
    }

    /// Closes the innermost container.
    public mutating func end() {
        guard let container = open.popLast() else { return }
        if container.hasMembers { newline(open.count) }
        buffer.append(container.close)
        if buffer.count >= Self.chunk { flush() }
    }

    /// Closes what is open, ends the document with a newline and hands over the rest.
    public mutating func finish() {
        while !open.isEmpty { end() }
        buffer.append(0x0A)
        flush()
    }

    /// Hands over what is buffered.
    public mutating func flush() {
        guard !buffer.isEmpty else { return }
        sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func separate(_ key: String?) {
        guard !open.isEmpty else { return }
        if open[open.count - 1].hasMembers { buffer.append(UInt8(ascii: ",")) }
        open[open.count - 1].hasMembers = true
        newline(open.count)
        if let key {
            JSONValue.string(key).write(to: &buffer, indent: nil)
            buffer.append(contentsOf: ": ".utf8)
        }
    }

    private mutating func newline(_ depth: Int) {
        JSONValue.newline(&buffer, indent: depth)
    }
}

/// A member's name as the stream writes it (`"name": `), spelled once for the rows that repeat
/// it: a listing of 100,000 transactions writes each of its names 100,000 times.
public struct JSONKey: @unchecked Sendable {
    /// Bytes made once and kept for the life of the process, as the keys are (a `static let`
    /// each), so that writing one retains nothing. Never written after `init`.
    let bytes: UnsafeBufferPointer<UInt8>

    public init(_ name: String) {
        bytes = JSONValue.immortal(JSONValue.string(name).bytes(compact: true) + Array(": ".utf8))
    }
}
