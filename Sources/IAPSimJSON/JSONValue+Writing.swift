import Foundation

extension JSONValue {
    /// A JSON number from an integer.
    public static func int<T: BinaryInteger>(_ value: T) -> JSONValue { .number(String(value)) }

    /// ISO 8601 in UTC, whole seconds; null for nil.
    public static func date(_ date: Date?) -> JSONValue {
        date.map { .string(ISO8601Date.string($0)) } ?? .null
    }

    /// A string; null for nil.
    public static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// Two-space indented text, as `jq` prints it.
    public func serialized() -> String {
        String(decoding: bytes(), as: UTF8.self)
    }

    /// The same, as UTF-8 bytes; on one line when `compact`.
    public func bytes(compact: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        write(to: &output, indent: compact ? nil : 0)
        return output
    }

    /// Appends this value; `indent` nil writes it on one line.
    public func write(to output: inout [UInt8], indent: Int?) {
        switch self {
        case .string(let text): Self.quote(text, into: &output)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: output.append(contentsOf: "null".utf8)
        case .array(let items):
            guard !items.isEmpty else {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (offset, item) in items.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent: indent.map { $0 + 1 })
                item.write(to: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent: indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(UInt8(ascii: "{"))
            for (offset, (key, value)) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent: indent.map { $0 + 1 })
                Self.quote(key, into: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(0x20) }
                value.write(to: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent: indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    static func newline(_ output: inout [UInt8], indent: Int?) {
        guard let indent else { return }
        if 1 + 2 * indent <= newlineAndSpaces.count {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: newlineAndSpaces[0..<1 + 2 * indent]))
        } else {
            output.append(0x0A)
            output.append(contentsOf: repeatElement(0x20, count: 2 * indent))
        }
    }

    /// A newline and the indent of the depths most documents reach, the first `1 + 2 × depth`
    /// bytes appended at once.
    nonisolated(unsafe) private static let newlineAndSpaces = immortal([0x0A] + [UInt8](repeating: 0x20, count: 32))

    /// `bytes` copied to memory kept for the life of the process: a constant appended in a
    /// loop retains and releases nothing.
    static func immortal(_ bytes: [UInt8]) -> UnsafeBufferPointer<UInt8> {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = copy.initialize(from: bytes)
        return UnsafeBufferPointer(copy)
    }

    /// A JSON string. Control characters, DEL and the line and paragraph separators are
    /// escaped; `/` is not.
    /// The bytes a string may hold as they are: not a control character, `"`, `\`, DEL, or
    /// the lead byte of U+2028/U+2029 (0xE2, checked further below).
    private static let plainBytes: [Bool] = (0...255).map { byte in
        !(byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || byte == 0xE2)
    }

    /// Whether every byte is plain (`plainBytes`): eight ASCII bytes at a time as one word
    /// (a byte below 0x20, or equal to `"`, `\` or DEL, found with the usual zero-byte test),
    /// then the rest by the table. A signed item is kilobytes of base64, and `serve` quotes one
    /// in every answer.
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while offset + 8 <= bytes.count {
                let word = ByteWord(raw, at: offset)
                if !word.isASCII { break }  // the table decides from here
                if word.hasByte(below: 0x20) || word.has(0x22) || word.has(0x5C) || word.has(0x7F) { return false }
                offset += 8
            }
        }
        return plainBytes.withUnsafeBufferPointer { table in
            bytes[offset...].allSatisfy { table[Int($0)] }
        }
    }

    private static func quote(_ text: String, into output: inout [UInt8]) {
        output.append(0x22)
        // Most text needs no escaping: append it whole, from its contiguous UTF-8 (a listing
        // of 100,000 transactions spends its time here).
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            let plain = Self.isPlain(bytes)
            if plain { output.append(contentsOf: bytes) }
            return plain
        }
        if plain == true {
            output.append(0x22)
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output.append(contentsOf: "\\\"".utf8)
            case "\\": output.append(contentsOf: "\\\\".utf8)
            case "\n": output.append(contentsOf: "\\n".utf8)
            case "\r": output.append(contentsOf: "\\r".utf8)
            case "\t": output.append(contentsOf: "\\t".utf8)
            case _
            where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                output.append(contentsOf: String(format: "\\u%04x", scalar.value).utf8)
            default: output.append(contentsOf: String(scalar).utf8)
            }
        }
        output.append(0x22)
    }
}
