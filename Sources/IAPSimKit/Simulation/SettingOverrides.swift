import Foundation

/// Settings set over their defaults — `iapsim settings set` in the state, a `.storekit` file's
/// `settings` in the catalog — each a typed value. Keys not set take the value beneath.
public struct SettingOverrides: Sendable, Equatable {
    /// The keys set.
    public private(set) var keys = SettingKeys()
    /// The values; only the fields of `keys` mean anything (the others stay iapsim's own).
    public private(set) var values = SessionSettings()

    public init() {}

    public var isEmpty: Bool { keys.isEmpty }

    /// The value of `key` as text, if it is set.
    public subscript(key: SettingKey) -> String? { keys.contains(key) ? values.text(for: key) : nil }

    /// Sets `key` from its text.
    /// - Throws: `SettingsError.invalidValue`; nothing changes.
    public mutating func set(_ key: SettingKey, text: String) throws(SettingsError) {
        try values.set(key, text: text)
        keys.insert(key)
    }

    /// Sets `key` by changing its typed field.
    mutating func set(_ key: SettingKey, _ change: (inout SessionSettings) -> Void) {
        change(&values)
        keys.insert(key)
    }

    /// Takes the value of `key` from `other`, whose field holds it.
    mutating func take(_ key: SettingKey, from other: SettingOverrides) {
        values.copy(key, from: other.values)
        keys.insert(key)
    }

    /// Back to the value beneath. A key not set holds its default already: nothing to do (a
    /// server request lays the app's settings over a customer's, removing the ones not set).
    public mutating func remove(_ key: SettingKey) {
        guard keys.contains(key) else { return }
        values.copy(key, from: SessionSettings())
        keys.remove(key)
    }

    public mutating func removeAll() { self = SettingOverrides() }
}

/// Setting keys as bits, in `SettingKey.allCases` order. Not a `Set<SettingKey>`: the first
/// `Set` or `Dictionary` keyed by a type in a process costs a scan of the program's protocol
/// conformances (about 340,000 instructions, paid by every command that reads the state).
public struct SettingKeys: Sequence, Equatable, Sendable, ExpressibleByArrayLiteral {
    private var bits: UInt64 = 0

    public init() {}

    public init(arrayLiteral keys: SettingKey...) {
        for key in keys { insert(key) }
    }

    public var isEmpty: Bool { bits == 0 }
    public var count: Int { bits.nonzeroBitCount }
    public func contains(_ key: SettingKey) -> Bool { bits & key.bit != 0 }
    public mutating func insert(_ key: SettingKey) { bits |= key.bit }
    public mutating func remove(_ key: SettingKey) { bits &= ~key.bit }

    /// The keys in `SettingKey.allCases` order.
    public func makeIterator() -> IndexingIterator<[SettingKey]> {
        SettingKey.ordered.filter { contains($0) }.makeIterator()
    }
}

extension SettingKey {
    /// `allCases`, made once (the synthesized property builds the array at each call).
    static let ordered = allCases

    /// The key's place in `allCases`.
    var ordinal: Int { Self.ordered.firstIndex(of: self) ?? 0 }

    fileprivate var bit: UInt64 { 1 << UInt64(ordinal) }
}
