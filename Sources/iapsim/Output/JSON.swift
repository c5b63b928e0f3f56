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
        var output = ""
        write(to: &output, indent: 0)
        return output
    }

    private func write(to output: inout String, indent: Int) {
        switch self {
        case .string(let text): Self.quote(text, into: &output)
        case .number(let text): output += text
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .array(let items):
            guard !items.isEmpty else { output += "[]"; return }
            output += "[\n"
            for (offset, item) in items.enumerated() {
                output += String(repeating: "  ", count: indent + 1)
                item.write(to: &output, indent: indent + 1)
                output += offset == items.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: "  ", count: indent) + "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{\n"
            for (offset, (key, value)) in members.enumerated() {
                output += String(repeating: "  ", count: indent + 1)
                Self.quote(key, into: &output)
                output += ": "
                value.write(to: &output, indent: indent + 1)
                output += offset == members.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: "  ", count: indent) + "}"
        }
    }

    private static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

/// Dates as iapsim prints them everywhere: ISO 8601, UTC, whole seconds.
enum ISO8601 {
    static func string(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
