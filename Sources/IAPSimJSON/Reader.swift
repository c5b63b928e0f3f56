import Foundation

/// A value in a JSON document, with its place (`products[2].displayPrice`), read with typed
/// accessors whose errors name the place and what was found. The place is kept as a chain of
/// steps and spelled out only for an error.
public struct Reader {
    /// What was wrong and where, as one sentence for the user.
    public struct Failure: Error, Equatable {
        /// The sentence, such as `products[0].productID: expected a string, found a number`.
        public var message: String

        /// A failure saying `message`, which should name the place.
        public init(message: String) { self.message = message }
    }

    /// Where a value sits in its document: the path of keys and indexes from the root.
    public indirect enum Place: Sendable {
        case root
        case key(Place, String)
        case index(Place, Int)

        /// The path as written in messages: `products[2].displayPrice`; empty for the root.
        public var text: String {
            switch self {
            case .root: ""
            case .key(let parent, let key):
                parent.text.isEmpty ? key : parent.text + "." + key
            case .index(let parent, let index):
                parent.text + "[\(index)]"
            }
        }
    }

    /// The value at this place.
    public let value: JSONValue
    /// Where the value sits.
    public let place: Place

    /// The document's root, named `place` in messages (empty: "the root").
    public init(_ value: JSONValue, at place: String) throws(Failure) {
        self.value = value
        self.place = place.isEmpty ? .root : .key(.root, place)
    }

    private init(value: JSONValue, place: Place) {
        self.value = value
        self.place = place
    }

    /// The error for a value that is not what was `expected`, naming the place and what was found.
    public func fail(_ expected: String) -> Failure {
        let text = place.text
        return Failure(message: "\(text.isEmpty ? "the root" : text): expected \(expected), found \(value.kind)")
    }

    /// The member `key`; nil if absent or null.
    public func optional(_ key: String) throws(Failure) -> Reader? {
        guard case .object = value else { throw fail("an object") }
        guard let child = value[key], child != .null else { return nil }
        return Reader(value: child, place: .key(place, key))
    }

    /// The member `key`, which must be present and not null.
    public func required(_ key: String) throws(Failure) -> Reader {
        guard let child = try optional(key) else {
            throw Failure(message: "\(Place.key(place, key).text): missing")
        }
        return child
    }

    /// A string.
    public func string() throws(Failure) -> String {
        guard case .string(let text) = value else { throw fail("a string") }
        return text
    }

    /// `true` or `false`.
    public func bool() throws(Failure) -> Bool {
        guard case .bool(let flag) = value else { throw fail("true or false") }
        return flag
    }

    /// A whole number that fits an `Int`.
    public func int() throws(Failure) -> Int {
        guard case .number(let text) = value, let number = Int(text) else { throw fail("a whole number") }
        return number
    }

    /// A count or a balance: a whole number, 0 or more.
    public func nonNegativeInt() throws(Failure) -> Int {
        let number = try int()
        guard number >= 0 else { throw fail("a whole number, 0 or more") }
        return number
    }

    /// A quantity: a whole number, 1 or more.
    public func positiveInt() throws(Failure) -> Int {
        let number = try int()
        guard number >= 1 else { throw fail("a whole number, 1 or more") }
        return number
    }

    /// A whole number, 0 or more, that fits a `UInt64`.
    public func uint64() throws(Failure) -> UInt64 {
        guard case .number(let text) = value, let number = UInt64(text) else { throw fail("a whole number") }
        return number
    }

    /// An ISO 8601 date string, within the dates the format holds (years 0001 to 9999).
    public func date() throws(Failure) -> Date {
        guard case .string(let text) = value, let date = ISO8601Date.date(text), ISO8601Date.isRepresentable(date)
        else {
            throw fail("an ISO 8601 date such as 2027-01-01T00:00:00Z")
        }
        return date
    }

    /// A string that must be one of an enum's raw values.
    public func raw<T: RawRepresentable>(_ type: T.Type) throws(Failure) -> T where T.RawValue == String {
        let text = try string()
        guard let value = T(rawValue: text) else {
            throw Failure(message: "\(place.text): \"\(text)\" is not a known value")
        }
        return value
    }

    /// An object of string keys, each value read by `element`.
    public func dictionary<Element>(
        _ element: (Reader) throws(Failure) -> Element
    ) throws(Failure) -> [String: Element] {
        guard case .object(let members) = value else { throw fail("an object") }
        var result: [String: Element] = [:]
        for (key, item) in members { result[key] = try element(Reader(value: item, place: .key(place, key))) }
        return result
    }

    /// A string or a number as text; nil for anything else.
    public var text: String? {
        switch value {
        case .string(let text), .number(let text): text
        default: nil
        }
    }

    /// An array, each item read by `element`.
    public func array<Element>(_ element: (Reader) throws(Failure) -> Element) throws(Failure) -> [Element] {
        guard case .array(let items) = value else { throw fail("an array") }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            result.append(try element(Reader(value: item, place: .index(place, index))))
        }
        return result
    }
}
