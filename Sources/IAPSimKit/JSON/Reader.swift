import Foundation

/// A value in a JSON document, with its place (`products[2].displayPrice`), read with typed
/// accessors whose errors name the place and what was found. The place is kept as a chain of
/// steps and spelled out only for an error.
struct Reader {
    struct Failure: Error, Equatable {
        var message: String
    }

    indirect enum Place {
        case root
        case key(Place, String)
        case index(Place, Int)

        var text: String {
            switch self {
            case .root: ""
            case .key(let parent, let key):
                parent.text.isEmpty ? key : parent.text + "." + key
            case .index(let parent, let index):
                parent.text + "[\(index)]"
            }
        }
    }

    let value: JSONValue
    let place: Place

    /// The document's root.
    init(_ value: JSONValue, at place: String) throws(Failure) {
        self.value = value
        self.place = place.isEmpty ? .root : .key(.root, place)
    }

    private init(value: JSONValue, place: Place) {
        self.value = value
        self.place = place
    }

    private func fail(_ expected: String) -> Failure {
        let text = place.text
        return Failure(message: "\(text.isEmpty ? "the root" : text): expected \(expected), found \(value.kind)")
    }

    /// The member `key`; nil if absent or null.
    func optional(_ key: String) throws(Failure) -> Reader? {
        guard case .object = value else { throw fail("an object") }
        guard let child = value[key], child != .null else { return nil }
        return Reader(value: child, place: .key(place, key))
    }

    func required(_ key: String) throws(Failure) -> Reader {
        guard let child = try optional(key) else {
            throw Failure(message: "\(Place.key(place, key).text): missing")
        }
        return child
    }

    func string() throws(Failure) -> String {
        guard case .string(let text) = value else { throw fail("a string") }
        return text
    }

    func bool() throws(Failure) -> Bool {
        guard case .bool(let flag) = value else { throw fail("true or false") }
        return flag
    }

    func int() throws(Failure) -> Int {
        guard case .number(let text) = value, let number = Int(text) else { throw fail("a whole number") }
        return number
    }

    /// A count or a balance: a whole number, 0 or more.
    func nonNegativeInt() throws(Failure) -> Int {
        let number = try int()
        guard number >= 0 else { throw fail("a whole number, 0 or more") }
        return number
    }

    /// A quantity: a whole number, 1 or more.
    func positiveInt() throws(Failure) -> Int {
        let number = try int()
        guard number >= 1 else { throw fail("a whole number, 1 or more") }
        return number
    }


    func uint64() throws(Failure) -> UInt64 {
        guard case .number(let text) = value, let number = UInt64(text) else { throw fail("a whole number") }
        return number
    }

    /// An ISO 8601 date string, within the dates the format holds (years 0001 to 9999).
    func date() throws(Failure) -> Date {
        guard case .string(let text) = value, let date = ISO8601Date.date(text), ISO8601Date.isRepresentable(date)
        else {
            throw fail("an ISO 8601 date such as 2027-01-01T00:00:00Z")
        }
        return date
    }

    /// A plain decimal string (`"2.99"`), read exactly.
    func decimal() throws(Failure) -> Decimal {
        guard case .string(let text) = value, let number = Decimal(plainDecimal: text) else {
            throw fail("a decimal number as a string such as \"2.99\"")
        }
        return number
    }

    /// An ISO 8601 subscription period such as `P1M`.
    func period() throws(Failure) -> SubscriptionPeriod {
        guard case .string(let text) = value, let period = SubscriptionPeriod(iso8601: text) else {
            throw fail("a subscription period such as P1M")
        }
        return period
    }

    /// A string that must be one of an enum's raw values.
    func raw<T: RawRepresentable>(_ type: T.Type) throws(Failure) -> T where T.RawValue == String {
        let text = try string()
        guard let value = T(rawValue: text) else {
            throw Failure(message: "\(place.text): \"\(text)\" is not a known value")
        }
        return value
    }

    /// An object of string keys, each value read by `element`.
    func dictionary<Element>(_ element: (Reader) throws(Failure) -> Element) throws(Failure) -> [String: Element] {
        guard case .object(let members) = value else { throw fail("an object") }
        var result: [String: Element] = [:]
        for (key, item) in members { result[key] = try element(Reader(value: item, place: .key(place, key))) }
        return result
    }

    /// A string or a number as text; nil for anything else.
    var text: String? {
        switch value {
        case .string(let text), .number(let text): text
        default: nil
        }
    }

    func array<Element>(_ element: (Reader) throws(Failure) -> Element) throws(Failure) -> [Element] {
        guard case .array(let items) = value else { throw fail("an array") }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            result.append(try element(Reader(value: item, place: .index(place, index))))
        }
        return result
    }
}
