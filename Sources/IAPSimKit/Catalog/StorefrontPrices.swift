import Foundation
import IAPSimJSON

/// iapsim's pricing file: what each product costs in storefronts other than the one the
/// `.storekit` file prices. It sits next to the `.storekit` file with the same base name and
/// `.prices.json` (`Products.storekit` → `Products.prices.json`):
///
/// ```json
/// { "com.example.app.book": { "JPN": "480", "DEU": "2.99", "GBR": "2.49" } }
/// ```
///
/// Keys are product identifiers, then storefront codes (ISO 3166-1 alpha-3, as
/// `Storefront.countryCode`); prices are plain decimal strings in that storefront's currency.
/// A product with no price for a storefront is not sold there (`notAvailableInStorefront`).
public struct StorefrontPrices: Sendable, Equatable {
    public var path: String
    public var prices: [String: [String: Decimal]]

    /// `Products.storekit` → `Products.prices.json`, in the same folder.
    public static func path(forStoreKit storeKitPath: String) -> String {
        let url = URL(fileURLWithPath: storeKitPath)
        return url.deletingPathExtension().path + ".prices.json"
    }

    public func price(_ productID: String, in storefront: Storefront) -> Decimal? {
        prices[productID]?[storefront.countryCode]
    }

    /// Reads the file, or returns nil if there is none.
    /// - Throws: `CatalogError` naming the file, product and storefront at fault.
    public static func loadIfPresent(path: String) throws(CatalogError) -> StorefrontPrices? {
        guard FileSystem.exists(path) else { return nil }
        let data = try CatalogFile.read(path)
        guard let root = try? JSONValue.parse([UInt8](data)), let products = root.objectValue else {
            throw CatalogError.malformed(path: path, detail: "expected a JSON object of product → storefront → price")
        }
        var prices: [String: [String: Decimal]] = [:]
        for (productID, value) in products {
            guard let byStorefront = value.objectValue else {
                throw CatalogError.malformed(
                    path: path, detail: "\(productID): expected an object of storefront → price")
            }
            for (code, priceValue) in byStorefront {
                guard let storefront = Storefront.named(code), code.count == 3 else {
                    throw CatalogError.malformed(path: path, detail: "\(productID): unknown storefront \"\(code)\"")
                }
                guard let text = priceValue.stringValue, let price = Decimal(plainDecimal: text) else {
                    throw CatalogError.invalidPrice(
                        path: path, productID: "\(productID) in \(code)", value: priceValue.serialized())
                }
                guard price <= Currency.maximumPrice else {
                    throw CatalogError.priceTooHigh(path: path, productID: "\(productID) in \(code)", value: text)
                }
                guard Currency.isValid(price, in: storefront.currencyCode) else {
                    throw CatalogError.fractionalPrice(
                        path: path, productID: productID, value: text, currencyCode: storefront.currencyCode)
                }
                prices[productID, default: [:]][storefront.countryCode] = price
            }
        }
        return StorefrontPrices(path: path, prices: prices)
    }
}
