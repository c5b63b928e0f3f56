import Foundation

/// The app's own list of the products it asks the store for: `IAPProductIDs.plist`, an array
/// of product identifier strings, XML or binary, as an app reads it with
/// `NSArray(contentsOf:)` before starting an `SKProductsRequest`.
///
/// StoreHelper's variant — a dictionary with a `Products` array and a `Subscriptions` array of
/// `{Group, Products}` — is read too, flattened in file order, since real apps ship it.
public enum ProductIdentifierList {
    /// Reads the list.
    /// - Throws: `CatalogError` naming the file and, for a bad element, its index.
    public static func load(path: String) throws -> [String] {
        let data = try CatalogFile.read(path)
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw CatalogError.malformed(path: path, detail: "not a property list (XML or binary)")
        }
        if let array = root as? [Any] {
            return try strings(in: array, path: path, location: nil)
        }
        if let dictionary = root as? [String: Any], dictionary["Products"] != nil || dictionary["Subscriptions"] != nil
        {
            return try storeHelperIdentifiers(dictionary, path: path)
        }
        throw CatalogError.notAnArray(path: path, found: describe(root))
    }

    private static func storeHelperIdentifiers(_ dictionary: [String: Any], path: String) throws -> [String] {
        var identifiers: [String] = []
        if let products = dictionary["Products"] {
            guard let array = products as? [Any] else {
                throw CatalogError.notAnArray(path: path, found: "Products as \(describe(products))")
            }
            identifiers += try strings(in: array, path: path, location: "Products")
        }
        if let subscriptions = dictionary["Subscriptions"] {
            guard let groups = subscriptions as? [Any] else {
                throw CatalogError.notAnArray(path: path, found: "Subscriptions as \(describe(subscriptions))")
            }
            for (index, group) in groups.enumerated() {
                guard let group = group as? [String: Any], let products = group["Products"] as? [Any] else {
                    throw CatalogError.malformed(
                        path: path, detail: "Subscriptions[\(index)] has no Products array of identifiers")
                }
                identifiers += try strings(in: products, path: path, location: "Subscriptions[\(index)].Products")
            }
        }
        return identifiers
    }

    private static func strings(in array: [Any], path: String, location: String?) throws -> [String] {
        var result: [String] = []
        result.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let string = element as? String else {
                if let location {
                    throw CatalogError.malformed(
                        path: path, detail: "\(location)[\(index)] is \(describe(element)), expected a string")
                }
                throw CatalogError.nonStringElement(path: path, index: index, found: describe(element))
            }
            result.append(string)
        }
        return result
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case is String: "a string"
        case is [Any]: "an array"
        case is [String: Any]: "a dictionary"
        case is Data: "data"
        case is Date: "a date"
        case is Bool: "a boolean"
        case is NSNumber: "a number"
        default: "a \(type(of: value))"
        }
    }
}
