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
        output.append(0x0A)
        for _ in 0..<2 * indent { output.append(0x20) }
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
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// Whether a byte of `word` (all below 0x80) is below `limit` (at most 0x80).
        func hasByteBelow(_ limit: UInt64, _ word: UInt64) -> Bool { (word &- ones &* limit) & ~word & highs != 0 }
        var offset = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while offset + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if word & highs != 0 { break }  // not ASCII: the table decides from here
                if hasByteBelow(0x20, word) || hasByteBelow(1, word ^ (ones &* 0x22))
                    || hasByteBelow(1, word ^ (ones &* 0x5C)) || hasByteBelow(1, word ^ (ones &* 0x7F))
                {
                    return false
                }
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
        var text = text
        let plain = text.withUTF8 { bytes in
            let plain = Self.isPlain(bytes)
            if plain { output.append(contentsOf: bytes) }
            return plain
        }
        if plain {
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
