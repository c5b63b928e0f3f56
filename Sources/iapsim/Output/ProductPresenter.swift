import Foundation
import IAPSimKit

/// How a catalog's products read in one locale: titles from the best localization, prices as
/// `Product.displayPrice` would show them in the storefront's currency.
struct ProductPresenter {
    let catalog: Catalog
    let localeIdentifier: String
    let formatter: PriceFormatter

    /// - Parameter locale: the requested locale, or nil for the catalog's own (`_locale`).
    init(catalog: Catalog, locale: String?) {
        self.catalog = catalog
        self.localeIdentifier = locale ?? catalog.store.localeIdentifier
        self.formatter = PriceFormatter(
            currencyCode: catalog.store.storefront.currencyCode, localeIdentifier: localeIdentifier)
    }

    func localization(_ product: Product) -> ProductLocalization? {
        product.localization(for: localeIdentifier, fallback: catalog.store.localeIdentifier)
    }

    /// The localized display name, or the reference name when the catalog has none.
    func title(_ product: Product) -> String {
        let name = localization(product)?.displayName ?? ""
        return name.isEmpty ? product.referenceName : name
    }

    func displayPrice(_ price: Decimal) -> String { formatter.string(for: price) }

    /// `consumable`, `non-consumable`, `auto-renewable`, `non-renewing`: short enough for a column.
    static func shortTypeName(_ type: ProductType) -> String {
        switch type {
        case .consumable: "consumable"
        case .nonConsumable: "non-consumable"
        case .autoRenewable: "auto-renewable"
        case .nonRenewable: "non-renewing"
        }
    }
}
