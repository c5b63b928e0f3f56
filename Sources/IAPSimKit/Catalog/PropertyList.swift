import Foundation
import IAPSimJSON

/// Property lists as `JSONValue`, so that one reader serves a `.plist` and a `.storekit` file
/// saved as a property list alike.
///
/// XML property lists are read here, by hand, to keep each dictionary's keys in file order:
/// `PropertyListSerialization` returns an unordered dictionary, and the order of a product
/// list is the order an app shows its products in. Binary property lists (and the old
/// OpenStep text form) go through `PropertyListSerialization`; their dictionaries come back
/// with the keys sorted, the only stable order it allows. Dates become ISO 8601 strings, data
/// Base64 strings.
enum PropertyList {
    struct Failure: Error, Equatable {
        var message: String
    }

    /// Whether `data` starts the way a property list does: `bplist`, or XML whose root is
    /// `<plist>` (a `.storekit` file saved as JSON starts with `{`).
    static func looksLikePropertyList(_ data: Data) -> Bool {
        if data.starts(with: Array("bplist".utf8)) { return true }
        // Bytes searched by hand: Foundation's `String.contains` cost every command reading a
        // catalog 190,000 instructions here.
        let head = [UInt8](data.prefix(512))
        return contains(head, "<plist") || contains(head, "<!DOCTYPE plist")
    }

    /// Whether `bytes` hold `text`'s UTF-8 bytes, in a row.
    private static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return needle.isEmpty }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    static func parse(_ data: Data) throws(Failure) -> JSONValue {
        if !data.starts(with: Array("bplist".utf8)) {
            let bytes = [UInt8](data)
            var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "<") {
                var parser = XMLPropertyList(bytes: bytes, index: index)
                return try parser.document()
            }
        }
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw Failure(message: "not a property list (XML or binary)")
        }
        return value(root)
    }

    /// A `PropertyListSerialization` value as JSON.
    private static func value(_ item: Any) -> JSONValue {
        switch item {
        case let text as String: return .string(text)
        case let date as Date: return .string(ISO8601Date.string(date))
        case let data as Data: return .string(data.base64EncodedString())
        case let array as [Any]: return .array(array.map(value))
        case let dictionary as [String: Any]:
            return .object(dictionary.keys.sorted().map { ($0, value(dictionary[$0]!)) })
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return number.doubleValue.isFinite ? .number(String(number.doubleValue)) : .null
            default: return .number(number.stringValue)
            }
        default: return .null
        }
    }
}

/// An XML property list, read from bytes (Apple's "PropertyList-1.0" DTD): `dict` with `key`
/// and a value each, `array`, `string`, `integer`, `real`, `true`, `false`, `date`, `data`,
/// with the five XML entities, character references, comments and CDATA.
private struct XMLPropertyList {
    let bytes: [UInt8]
    var index: Int
    /// Deep enough for any real file, shallow enough that a hostile one cannot exhaust the stack.
    static let maximumDepth = 256

    private func fail(_ message: String) -> PropertyList.Failure {
        PropertyList.Failure(message: "not a valid XML property list: \(message) at byte \(index)")
    }

    /// The root value inside `<plist>`.
    mutating func document() throws(PropertyList.Failure) -> JSONValue {
        skipMisc()
        guard let tag = try nextTag(), !tag.closing, tag.name == "plist" else { throw fail("expected <plist>") }
        skipMisc()
        let root = try value(depth: 0)
        skipMisc()
        guard let end = try nextTag(), end.closing, end.name == "plist" else { throw fail("expected </plist>") }
        skipMisc()
        guard index == bytes.count else { throw fail("text after </plist>") }
        return root
    }

    private struct Tag {
        var name: String
        var closing: Bool
        var empty: Bool
    }

    /// Skips white space, comments, processing instructions and the DOCTYPE.
    private mutating func skipMisc() {
        while index < bytes.count {
            if [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                index += 1
            } else if starts("<!--") {
                index = find("-->").map { $0 + 3 } ?? bytes.count
            } else if starts("<?") {
                index = find("?>").map { $0 + 2 } ?? bytes.count
            } else if starts("<!DOCTYPE") {
                index = find(">").map { $0 + 1 } ?? bytes.count
            } else {
                return
            }
        }
    }

    /// Whether the bytes at `index` are `text`'s. Compared in place: the text's characters are
    /// looked at once per byte of the file, and arrays made per call cost 26,000 instructions a
    /// string of an `IAPProductIDs.plist`.
    private func starts(_ text: StaticString) -> Bool {
        starts(text, at: index)
    }

    private func starts(_ text: StaticString, at position: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return text.withUTF8Buffer { pattern in
            for offset in 0..<count where bytes[position + offset] != pattern[offset] { return false }
            return true
        }
    }

    private func find(_ text: StaticString) -> Int? {
        var position = index
        while position < bytes.count {
            if starts(text, at: position) { return position }
            position += 1
        }
        return nil
    }

    /// The tag at `index` (`<name attr="…">`, `</name>`, `<name/>`), or nil at the end.
    private mutating func nextTag() throws(PropertyList.Failure) -> Tag? {
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: "<"), let close = find(">") else { throw fail("expected a tag") }
        var inside = Array(bytes[(index + 1)..<close])
        index = close + 1
        let closing = inside.first == UInt8(ascii: "/")
        if closing { inside.removeFirst() }
        let empty = inside.last == UInt8(ascii: "/")
        if empty { inside.removeLast() }
        let name = inside.prefix { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return Tag(name: String(decoding: name, as: UTF8.self), closing: closing, empty: empty)
    }

    private mutating func value(depth: Int) throws(PropertyList.Failure) -> JSONValue {
        guard depth < Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth) levels") }
        guard let tag = try nextTag(), !tag.closing else { throw fail("expected a value") }
        switch tag.name {
        case "dict":
            var members: [(String, JSONValue)] = []
            if tag.empty { return .object(members) }
            while true {
                skipMisc()
                guard let key = try nextTag() else { throw fail("unterminated <dict>") }
                if key.closing, key.name == "dict" { return .object(members) }
                guard key.name == "key", !key.closing else { throw fail("expected <key> in <dict>") }
                let name = key.empty ? "" : try text(closing: "key")
                skipMisc()
                members.append((name, try value(depth: depth + 1)))
            }
        case "array":
            var items: [JSONValue] = []
            if tag.empty { return .array(items) }
            while true {
                skipMisc()
                if starts("</") {
                    guard let end = try nextTag(), end.name == "array" else { throw fail("expected </array>") }
                    return .array(items)
                }
                items.append(try value(depth: depth + 1))
            }
        case "true", "false":
            if !tag.empty {
                guard let end = try nextTag(), end.closing, end.name == tag.name else {
                    throw fail("expected </\(tag.name)>")
                }
            }
            return .bool(tag.name == "true")
        case "string", "date", "data":
            let content = tag.empty ? "" : try text(closing: tag.name)
            if tag.name == "data" { return .string(content.filter { !$0.isWhitespace }) }
            return .string(content)
        case "integer", "real":
            let content = (tag.empty ? "" : try text(closing: tag.name)).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let number = Double(content), number.isFinite, !content.isEmpty else {
                throw fail("<\(tag.name)>\(content)</\(tag.name)> is not a number")
            }
            if tag.name == "integer", let whole = Int(content) { return .number(String(whole)) }
            return .number(String(number))
        default:
            throw fail("unknown element <\(tag.name)>")
        }
    }

    /// Character data up to `</name>`, entities and CDATA decoded.
    private mutating func text(closing name: String) throws(PropertyList.Failure) -> String {
        var result: [UInt8] = []
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<"), starts("<![CDATA[") {
                index += 9
                guard let end = find("]]>") else { throw fail("unterminated CDATA") }
                result += bytes[index..<end]
                index = end + 3
            } else if bytes[index] == UInt8(ascii: "<") {
                guard let tag = try nextTag(), tag.closing, tag.name == name else { throw fail("expected </\(name)>") }
                return String(decoding: result, as: UTF8.self)
            } else if bytes[index] == UInt8(ascii: "&") {
                guard let semicolon = find(";"), semicolon - index <= 10 else { throw fail("bad entity") }
                let entity = String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)
                index = semicolon + 1
                switch entity {
                case "amp": result.append(UInt8(ascii: "&"))
                case "lt": result.append(UInt8(ascii: "<"))
                case "gt": result.append(UInt8(ascii: ">"))
                case "quot": result.append(UInt8(ascii: "\""))
                case "apos": result.append(UInt8(ascii: "'"))
                default:
                    let code =
                        entity.hasPrefix("#x")
                        ? UInt32(entity.dropFirst(2), radix: 16)
                        : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                    guard let code, let scalar = Unicode.Scalar(code) else { throw fail("unknown entity &\(entity);") }
                    result += Array(String(Character(scalar)).utf8)
                }
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        throw fail("unterminated <\(name)>")
    }
}
