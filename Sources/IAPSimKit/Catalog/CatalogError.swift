import Foundation

/// Why a catalog could not be used. Every case names the file, and the product or value.
public enum CatalogError: Error, Equatable, Sendable {
    /// No catalog folder was given and none was found where iapsim looks.
    case noCatalog(searched: [String])
    /// A folder holds several `.storekit` files and none is `Products.storekit`.
    case severalStoreKitFiles(directory: String, names: [String])
    case fileNotFound(path: String)
    case unreadable(path: String, reason: String)
    case emptyFile(path: String)
    /// The file is not JSON / not a property list, or has the wrong shape at `detail`.
    case malformed(path: String, detail: String)
    /// The product identifier list's root is none of the shapes it may have.
    case notAnArray(path: String, found: String)
    case nonStringElement(path: String, index: Int, found: String)
    case invalidPrice(path: String, productID: String, value: String)
    /// A price above `Currency.maximumPrice`.
    case priceTooHigh(path: String, productID: String, value: String)
    /// A fractional price in a currency without a minor unit (JPY, KRW, …).
    case fractionalPrice(path: String, productID: String, value: String, currencyCode: String)
    case unknownProductType(path: String, productID: String, value: String)
    case invalidPeriod(path: String, productID: String, value: String)
    case unknownStorefront(path: String, value: String)
    case unknownLocale(path: String, value: String)
}

extension CatalogError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .noCatalog(let searched):
            return "no catalog found (looked in \(searched.joined(separator: ", "))); "
                + "pass --catalog DIR or set IAPSIM_CATALOG"
        case .severalStoreKitFiles(let directory, let names):
            return "\(directory): several StoreKit configuration files (\(names.joined(separator: ", "))); "
                + "choose one with --storekit FILE"
        case .fileNotFound(let path):
            return "\(path): no such file; point --catalog, --storekit or --product-ids (or IAPSIM_CATALOG) at it"
        case .unreadable(let path, let reason):
            return "\(path): cannot read: \(reason)"
        case .emptyFile(let path):
            return "\(path): the file is empty; save it again from Xcode or give another file"
        case .malformed(let path, let detail):
            return "\(path): \(detail)"
        case .notAnArray(let path, let found):
            return "\(path): \(ProductIdentifierList.expectedShapes) at the root, found \(found)"
        case .nonStringElement(let path, let index, let found):
            return "\(path): element \(index) is \(found), expected a product identifier string"
        case .invalidPrice(let path, let productID, let value):
            return "\(path): \(productID): displayPrice \"\(value)\" is not a plain decimal such as \"0.99\""
        case .priceTooHigh(let path, let productID, let value):
            return "\(path): \(productID): price \(value) is above \(Currency.maximumPrice), the highest iapsim takes "
                + "(signed data carries prices as 64-bit milliunits)"
        case .fractionalPrice(let path, let productID, let value, let currency):
            return "\(path): \(productID): \(value) is not a valid price in \(currency), which has no decimals"
        case .unknownProductType(let path, let productID, let value):
            let known = ProductType.allCases.map(\.storeKitConfigurationName).joined(separator: ", ")
            return "\(path): \(productID): unknown product type \"\(value)\" (expected one of \(known))"
        case .invalidPeriod(let path, let productID, let value):
            return "\(path): \(productID): \"\(value)\" is not a subscription period of a day to a year, such as P1M"
        case .unknownStorefront(let path, let value):
            return
                "\(path): settings._storefront: unknown storefront \"\(value)\"; use an App Store code such as USA or JPN"
        case .unknownLocale(let path, let value):
            return "\(path): settings._locale: unknown locale \"\(value)\"; use an identifier such as en_US"
        }
    }
}
