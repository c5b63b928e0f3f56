import Foundation

/// Formats prices the way `Product.displayPrice` does: in the storefront's currency, with the
/// conventions of a price locale (`SKProduct.priceLocale`). Both are always named explicitly;
/// `Locale.current` is never used (on Linux it is always `en_001`).
public struct PriceFormatter: Sendable {
    public let currencyCode: String
    public let localeIdentifier: String
    private let style: Decimal.FormatStyle.Currency

    /// - Parameters:
    ///   - currencyCode: ISO 4217, e.g. `USD`.
    ///   - localeIdentifier: a canonical identifier from `LocaleName.canonical(_:)`.
    public init(currencyCode: String, localeIdentifier: String) {
        self.currencyCode = currencyCode
        self.localeIdentifier = localeIdentifier
        self.style = .currency(code: currencyCode).locale(Locale(identifier: localeIdentifier))
    }

    /// `$0.99`, `0,99 $`, `¥100`.
    public func string(for price: Decimal) -> String {
        price.formatted(style)
    }
}
