/// An App Store storefront: the country a buyer's account belongs to and the currency it
/// prices in, as StoreKit 2's `Storefront` (`countryCode` is ISO 3166-1 alpha-3).
public struct Storefront: Sendable, Equatable {
    /// `Storefront.countryCode`, e.g. `USA`.
    public var countryCode: String
    /// ISO 3166-1 alpha-2, e.g. `US`.
    public var regionCode: String
    /// ISO 4217 code of the prices in this storefront, e.g. `USD`.
    public var currencyCode: String
    /// The locale prices are formatted in by default (`Product.priceFormatStyle`'s locale).
    public var localeIdentifier: String

    public init(countryCode: String, regionCode: String, currencyCode: String, localeIdentifier: String) {
        self.countryCode = countryCode
        self.regionCode = regionCode
        self.currencyCode = currencyCode
        self.localeIdentifier = localeIdentifier
    }

    /// Xcode's default when a `.storekit` file names none.
    public static let unitedStates = Storefront(
        countryCode: "USA", regionCode: "US", currencyCode: "USD", localeIdentifier: "en_US")

    /// Every storefront iapsim knows, in table order.
    public static var all: [Storefront] { table }

    /// Every storefront's position in `table` under each of its codes, alpha-3 and alpha-2, in
    /// an open-addressed hash table: a slot holds the `packed` code in its high 32 bits and the
    /// position plus one in its low ones (0: empty). A dictionary of the 350 codes cost every
    /// command 228,000 instructions to build, and sorting them 290,000; this, 108,000, most of
    /// it reading the table's rows.
    private static let byCode: [UInt64] = {
        var slots = [UInt64](repeating: 0, count: slotCount)
        for (position, storefront) in table.enumerated() {
            put(storefront.countryCode, at: position, into: &slots)
            put(storefront.regionCode, at: position, into: &slots)
        }
        return slots
    }()

    private static func put(_ code: String, at position: Int, into slots: inout [UInt64]) {
        guard let packed = packed(code) else { return }
        var slot = slot(of: packed)
        while slots[slot] != 0 { slot = (slot + 1) % slotCount }  // 350 codes in 1,024 slots
        slots[slot] = UInt64(packed) << 32 | UInt64(position + 1)
    }

    private static let slotCount = 1024

    /// Where the search for `packed` starts: the top ten bits of a Fibonacci hash.
    private static func slot(of packed: UInt32) -> Int {
        Int(truncatingIfNeeded: (UInt64(packed) &* 0x9E37_79B9_7F4A_7C15) >> 54)
    }

    /// The storefront for an alpha-3 (`USA`) or alpha-2 (`US`) code, any case.
    public static func named(_ code: String) -> Storefront? {
        guard let packed = packed(code) else { return nil }
        var slot = slot(of: packed)
        for _ in 0..<slotCount {
            let entry = byCode[slot]
            if entry == 0 { return nil }
            if entry >> 32 == UInt64(packed) { return table[Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1] }
            slot = (slot + 1) % slotCount
        }
        return nil
    }

    /// A code of two or three ASCII letters, any case, as a number (its upper-case letters'
    /// bytes); nil for anything else, which names no storefront.
    static func packed(_ code: String) -> UInt32? {
        var packed: UInt32 = 0
        var count = 0
        for byte in code.utf8 {
            let upper = byte & 0xDF
            guard count < 3, byte & 0x80 == 0, upper >= UInt8(ascii: "A"), upper <= UInt8(ascii: "Z") else {
                return nil
            }
            packed = packed << 8 | UInt32(upper)
            count += 1
        }
        return count >= 2 ? packed : nil
    }

    /// Where `key` is among `count` ascending keys (`key(at:)`), by halves.
    static func position<Key: Comparable>(of key: Key, count: Int, key keyAt: (Int) -> Key) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let middle = low + (high - low) / 2
            if keyAt(middle) < key { low = middle + 1 } else { high = middle }
        }
        return low < count && keyAt(low) == key ? low : nil
    }
}
