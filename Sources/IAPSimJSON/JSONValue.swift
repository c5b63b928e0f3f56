/// A JSON document: what iapsim reads (`.storekit` files, the state) and what it writes (the
/// state, `--json` output). One type for both, with a small recursive-descent parser over
/// UTF-8 bytes and a writer that keeps keys in the order given.
///
/// iapsim uses it rather than `JSONDecoder`/`JSONEncoder`: on a statically linked binary their
/// generic type checks cost more than the rest of a `list` together (measured with
/// callgrind: 11 of 25 million instructions), and a parser of its own can bound nesting depth,
/// so a hostile file cannot overflow the stack.
public enum JSONValue: Equatable, Sendable {
    /// Members in order. Objects in a `.storekit` file have a dozen keys at most, so a linear
    /// search beats hashing every key of a 10,000-product file.
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    /// A number's text, exactly as written.
    case number(String)
    case bool(Bool)
    case null

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { member in b.contains { $0.0 == member.0 && $0.1 == member.1 } }
        case (.array(let a), .array(let b)): a == b
        case (.string(let a), .string(let b)), (.number(let a), .number(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// The member `key` of an object (the last, if a key repeats); nil otherwise.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    /// The text of a string; nil for anything else.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A boolean; nil for anything else.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The items of an array; nil for anything else.
    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The members of an object; nil for anything else.
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// A whole number; nil for anything else.
    public var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    /// Why bytes are not a JSON document, and where.
    public struct SyntaxError: Error, Equatable {
        /// The byte offset of the first problem.
        public var offset: Int
        /// What was wrong there, e.g. "expected ',' or '}'".
        public var message: String
    }

    /// Arrays and objects nested deeper than this are refused, so no document can overflow the stack.
    public static let maximumDepth = 512

    /// Parses a whole document.
    /// - Throws: `SyntaxError` with the byte offset of the first problem.
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            do throws(SyntaxError) {
                parser.skipWhitespace()
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                guard parser.position == buffer.count else {
                    throw parser.error("unexpected text after the JSON value")
                }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses a whole document, leaving undecoded the string value of the top-level object's
    /// member named `key` (the last, as the subscript reads it, when it repeats): its bytes
    /// between the quotes, escapes as sent, are returned as a range of `bytes`, and the
    /// member's value is the empty string. For a large member
    /// (a receipt in Base64) this spares a copy of it: the caller reads it where it lies.
    /// - Returns: the document, and the range (nil when there is no such member, or it is not
    ///   a string).
    /// - Throws: `SyntaxError` with the byte offset of the first problem.
    public static func parse(_ bytes: [UInt8], deferringString key: String) throws(SyntaxError) -> (
        value: JSONValue, deferred: Range<Int>?
    ) {
        let result: Result<(JSONValue, Range<Int>?), SyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            parser.deferredKey = key
            do throws(SyntaxError) {
                parser.skipWhitespace()
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                guard parser.position == buffer.count else {
                    throw parser.error("unexpected text after the JSON value")
                }
                return .success((value, parser.deferred))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// "an object", "a string", …: for error messages.
    var kind: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "true or false"
        case .null: "null"
        }
    }

    /// Works on the bytes in place; every index is checked against `count` before use.
    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        /// The top-level member whose string value is left undecoded (`deferred`).
        var deferredKey: String?
        var deferred: Range<Int>?

        func error(_ message: String) -> SyntaxError { SyntaxError(offset: position, message: message) }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth < JSONValue.maximumDepth else {
                throw error("nested deeper than \(JSONValue.maximumDepth) levels")
            }
            guard position < bytes.count else { throw error("unexpected end of file") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal(Self.trueBytes, .bool(true))
            case UInt8(ascii: "f"): return try literal(Self.falseBytes, .bool(false))
            case UInt8(ascii: "n"): return try literal(Self.nullBytes, .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character")
            }
        }

        static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8), nullBytes = Array("null".utf8)

        mutating func literal(_ word: [UInt8], _ value: JSONValue) throws(SyntaxError) -> JSONValue {
            guard position + word.count <= bytes.count, bytes[position..<position + word.count].elementsEqual(word)
            else {
                throw error("unexpected character")
            }
            position += word.count
            return value
        }

        mutating func object(depth: Int) throws(SyntaxError) -> JSONValue {
            position += 1
            var members: [(String, JSONValue)] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw error("expected a key")
                }
                let key = try string()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
                position += 1
                skipWhitespace()
                if depth == 0, key == deferredKey, position < bytes.count,
                    bytes[position] == UInt8(ascii: "\"")
                {
                    deferred = try skipString()
                    members.append((key, .string("")))
                } else {
                    members.append((key, try value(depth: depth + 1)))
                }
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of file in an object") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                } else {
                    throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> JSONValue {
            position += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of file in an array") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(items)
                } else {
                    throw error("expected ',' or ']'")
                }
            }
        }

        mutating func number() throws(SyntaxError) -> JSONValue {
            let start = position
            let (end, problem) = JSONValue.scanNumber(bytes, from: start)
            position = end
            if let problem { throw error(problem) }
            return .number(String(decoding: bytes[start..<position], as: UTF8.self))
        }

        /// Steps over a string, checking its escapes and that it holds no control character;
        /// returns the range between its quotes.
        mutating func skipString() throws(SyntaxError) -> Range<Int> {
            position += 1
            let start = position
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""):
                    position += 1
                    return start..<(position - 1)
                case UInt8(ascii: "\\"):
                    guard position + 1 < bytes.count else { throw error("unterminated string") }
                    let escaped = bytes[position + 1]
                    if escaped == UInt8(ascii: "u") {
                        guard position + 6 <= bytes.count,
                            bytes[(position + 2)..<(position + 6)].allSatisfy({ Self.isHexDigit($0) })
                        else { throw error("invalid \\u escape") }
                        position += 6
                    } else {
                        guard "\"\\/bfnrt".utf8.contains(escaped) else { throw error("invalid escape") }
                        position += 2
                    }
                case 0x00..<0x20: throw error("a control character in a string")
                default: position += 1
                }
            }
            throw error("unterminated string")
        }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                UInt8(ascii: "A")...UInt8(ascii: "F"):
                true
            default: false
            }
        }

        mutating func string() throws(SyntaxError) -> String {
            position += 1
            // The common case: no escapes, so the text is the bytes between the quotes.
            var end = position
            var ascii = true
            scan: while end < bytes.count {
                switch bytes[end] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x00..<0x20: break scan
                case 0x80...: ascii = false
                default: break
                }
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                let slice = bytes[position..<end]
                position = end + 1
                if ascii { return String(decoding: slice, as: UTF8.self) }  // ASCII is valid UTF-8
                guard let text = String(validating: slice, as: UTF8.self) else {
                    position = end
                    throw error("invalid UTF-8 in a string")
                }
                return text
            }
            var run = position
            var pieces: [UInt8] = []
            while true {
                guard position < bytes.count else { throw error("unterminated string") }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    pieces += bytes[run..<position]
                    position += 1
                    break
                }
                if byte < 0x20 { throw error("control character in a string") }
                if byte == UInt8(ascii: "\\") {
                    pieces += bytes[run..<position]
                    position += 1
                    guard position < bytes.count else { throw error("unterminated string") }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""): pieces.append(0x22)
                    case UInt8(ascii: "\\"): pieces.append(0x5C)
                    case UInt8(ascii: "/"): pieces.append(0x2F)
                    case UInt8(ascii: "b"): pieces.append(0x08)
                    case UInt8(ascii: "f"): pieces.append(0x0C)
                    case UInt8(ascii: "n"): pieces.append(0x0A)
                    case UInt8(ascii: "r"): pieces.append(0x0D)
                    case UInt8(ascii: "t"): pieces.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code), position + 1 < bytes.count,
                            bytes[position] == UInt8(ascii: "\\"),
                            bytes[position + 1] == UInt8(ascii: "u")
                        {
                            position += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid surrogate pair") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                        pieces += Array(String(scalar).utf8)
                    default:
                        throw error("invalid escape")
                    }
                    run = position
                    continue
                }
                position += 1
            }
            guard let text = String(validating: pieces, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
            return text
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard position + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
            else { throw error("invalid \\u escape") }
            position += 4
            return value
        }
    }
}
