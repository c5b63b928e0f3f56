import Foundation

/// A JSON value with its keys in the order written, so output reads `id` first and stays the
/// same from run to run. Serialised by hand: small, fast, and no `\/` escaping.
enum JSON: Equatable, Sendable {
    case string(String)
    /// A number, already in JSON syntax.
    case number(String)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])

    static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.serialized() == rhs.serialized() }

    static func int<T: BinaryInteger>(_ value: T) -> JSON { .number(String(value)) }

    static func date(_ date: Date?) -> JSON {
        guard let date else { return .null }
        return .string(ISO8601.string(date))
    }

    static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }

    /// Two-space indented text, as `jq` prints it.
    func serialized() -> String {
        String(decoding: bytes(), as: UTF8.self)
    }

    /// The same, as UTF-8 bytes.
    func bytes() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        write(to: &output, indent: 0)
        return output
    }

    private static func newline(_ output: inout [UInt8], indent: Int) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x20, count: 2 * indent))
    }

    func write(to output: inout [UInt8], indent: Int) {
        switch self {
        case .string(let text): Self.quote(text, into: &output)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: output.append(contentsOf: "null".utf8)
        case .array(let items):
            guard !items.isEmpty else { output.append(contentsOf: "[]".utf8); return }
            output.append(UInt8(ascii: "["))
            for (offset, item) in items.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent: indent + 1)
                item.write(to: &output, indent: indent + 1)
            }
            Self.newline(&output, indent: indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { output.append(contentsOf: "{}".utf8); return }
            output.append(UInt8(ascii: "{"))
            for (offset, (key, value)) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent: indent + 1)
                Self.quote(key, into: &output)
                output.append(contentsOf: ": ".utf8)
                value.write(to: &output, indent: indent + 1)
            }
            Self.newline(&output, indent: indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func quote(_ text: String, into output: inout [UInt8]) {
        output.append(0x22)
        // Most text needs no escaping: append it whole.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 }) {
            output.append(contentsOf: text.utf8)
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
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                output.append(contentsOf: String(format: "\\u%04x", scalar.value).utf8)
            default: output.append(contentsOf: String(scalar).utf8)
            }
        }
        output.append(0x22)
    }
}

/// Dates as iapsim prints them everywhere: ISO 8601, UTC, whole seconds.
enum ISO8601 {
    static func string(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
