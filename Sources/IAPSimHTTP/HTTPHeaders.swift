/// Header fields in the order they came, duplicates kept, looked up without regard to the
/// case of the name (`content-type` finds `Content-Type`).
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One field: its name as sent, and its value without surrounding whitespace.
    public typealias Field = (name: String, value: String)

    private var fields: [Field]

    /// No fields.
    public init() { fields = [] }

    /// The fields given, in order.
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    /// A literal such as `["Content-Type": "application/json"]`; repeated names are kept.
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// How many fields there are, repeated names counted each time.
    public var count: Int { fields.count }
    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Every value of `name`, each split at commas and trimmed, empty items dropped: the
    /// list form (`Connection: keep-alive, Upgrade`).
    public func listItems(for name: String) -> [String] {
        values(for: name).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingASCIISpace() }.filter { !$0.isEmpty }
    }

    /// Whether a field called `name` is present.
    public func contains(_ name: String) -> Bool { fields.contains { Self.sameName($0.name, name) } }

    /// Whether the list header `name` holds `token`, ignoring case (`Connection: Close`).
    public func containsToken(_ token: String, in name: String) -> Bool {
        listItems(for: name).contains { Self.sameName($0, token) }
    }

    /// Appends a field, keeping any of the same name.
    public mutating func add(name: String, value: String) { fields.append((name: name, value: value)) }

    /// Removes every field called `name`, then appends one.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field called `name`.
    public mutating func remove(name: String) { fields.removeAll { Self.sameName($0.name, name) } }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive equality: header names and the tokens compared here are ASCII.
    static func sameName(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.count == rhs.utf8.count
            && zip(lhs.utf8, rhs.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end (HTTP's optional whitespace).
    func trimmingASCIISpace() -> String {
        let utf8 = Array(self.utf8)
        var lower = 0
        var upper = utf8.count
        while lower < upper, utf8[lower] == 0x20 || utf8[lower] == 0x09 { lower += 1 }
        while upper > lower, utf8[upper - 1] == 0x20 || utf8[upper - 1] == 0x09 { upper -= 1 }
        return String(decoding: utf8[lower..<upper], as: UTF8.self)
    }
}
