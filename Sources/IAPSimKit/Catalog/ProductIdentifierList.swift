import Foundation
import IAPSimJSON

/// The app's own list of the products it asks the store for, as an app reads it before
/// starting an `SKProductsRequest` or calling `Product.products(for:)`. XML or binary
/// property lists in the shapes real apps ship:
///
/// - an array of product identifier strings (`IAPProductIDs.plist`, read with
///   `NSArray(contentsOf:)`);
/// - a dictionary of product identifier to a value, as Apple's StoreKit sample code keeps
///   `Products.plist` (identifier → emoji): the keys, in file order for an XML plist and sorted
///   for a binary one, whose dictionaries keep no order (`PropertyList`);
/// - an array of dictionaries, each with its identifier under `productIdentifier`,
///   `productID`, `identifier` or `id`;
/// - StoreHelper's dictionary with a `Products` array and a `Subscriptions` array of
///   `{Group, Products}`, flattened in file order.
public enum ProductIdentifierList {
    /// The keys an array-of-dictionaries list may hold its identifiers under, in the order tried.
    static let identifierKeys = ["productIdentifier", "productID", "identifier", "id"]

    /// The shapes a list may have, for an error that tells them.
    static let expectedShapes =
        "expected an array of product identifier strings, a dictionary keyed by product identifier, "
        + "or an array of dictionaries with a productIdentifier, productID, identifier or id string"

    /// Reads the list.
    /// - Throws: `CatalogError` naming the file and, for a bad element, its index.
    public static func load(path: String) throws(CatalogError) -> [String] {
        let data = try CatalogFile.read(path)
        let root: JSONValue
        do {
            root = try PropertyList.parse(data)
        } catch {
            throw CatalogError.malformed(
                path: path,
                detail: error.message.hasPrefix("not a property list")
                    ? error.message : "not a property list (XML or binary): \(error.message)")
        }
        switch root {
        case .array(let items):
            if case .object = items.first { return try dictionaries(items, path: path) }
            return try strings(in: items, path: path, location: nil)
        case .object(let members):
            // StoreHelper's shape, told from an identifier → value dictionary by its arrays.
            if root["Products"]?.arrayValue != nil || root["Subscriptions"]?.arrayValue != nil {
                return try storeHelperIdentifiers(root, path: path)
            }
            return members.map(\.0)
        default:
            throw CatalogError.notAnArray(path: path, found: describe(root))
        }
    }

    private static func dictionaries(_ items: [JSONValue], path: String) throws(CatalogError) -> [String] {
        try items.enumerated().map { (index, item) throws(CatalogError) -> String in
            guard case .object = item else {
                throw CatalogError.malformed(
                    path: path, detail: "element \(index) is \(describe(item)); \(expectedShapes)")
            }
            for key in identifierKeys {
                if let identifier = item[key]?.stringValue { return identifier }
            }
            throw CatalogError.malformed(
                path: path,
                detail: "element \(index) has no \(identifierKeys.joined(separator: ", ")) string; \(expectedShapes)")
        }
    }

    private static func storeHelperIdentifiers(_ root: JSONValue, path: String) throws(CatalogError) -> [String] {
        var identifiers: [String] = []
        if let products = root["Products"] {
            guard let array = products.arrayValue else {
                throw CatalogError.notAnArray(path: path, found: "Products as \(describe(products))")
            }
            identifiers += try strings(in: array, path: path, location: "Products")
        }
        if let subscriptions = root["Subscriptions"] {
            guard let groups = subscriptions.arrayValue else {
                throw CatalogError.notAnArray(path: path, found: "Subscriptions as \(describe(subscriptions))")
            }
            for (index, group) in groups.enumerated() {
                guard let products = group["Products"]?.arrayValue else {
                    throw CatalogError.malformed(
                        path: path, detail: "Subscriptions[\(index)] has no Products array of identifiers")
                }
                identifiers += try strings(in: products, path: path, location: "Subscriptions[\(index)].Products")
            }
        }
        return identifiers
    }

    private static func strings(in array: [JSONValue], path: String, location: String?) throws(CatalogError) -> [String]
    {
        var result: [String] = []
        result.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let string = element.stringValue else {
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

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        case .bool: "a boolean"
        case .number: "a number"
        case .null: "nothing"
        }
    }
}
