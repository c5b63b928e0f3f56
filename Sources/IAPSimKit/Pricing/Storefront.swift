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

    private static let byCode: [String: Storefront] = {
        var index: [String: Storefront] = Dictionary(minimumCapacity: table.count * 2)
        for storefront in table {
            index[storefront.countryCode] = storefront
            index[storefront.regionCode] = storefront
        }
        return index
    }()

    /// The storefront for an alpha-3 (`USA`) or alpha-2 (`US`) code, any case.
    public static func named(_ code: String) -> Storefront? {
        byCode[code.uppercased()]
    }
}
