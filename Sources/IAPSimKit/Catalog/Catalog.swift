/// What an app sees after its products request: the products it asked for that the store has,
/// in the order it asked, and the identifiers the store does not know
/// (`SKProductsResponse.invalidProductIdentifiers`).
public struct Catalog: Sendable {
    public var source: CatalogSource
    public var store: StoreConfiguration
    /// The app's identifier list, or every store product when there is none.
    public var requestedIdentifiers: [String]
    /// `SKProductsResponse.products`, in the order requested, each once.
    public var products: [Product]
    /// `SKProductsResponse.invalidProductIdentifiers`, in the order requested, each once.
    public var invalidProductIdentifiers: [String]

    private var index: [String: Int]

    /// Loads both files and matches them up.
    /// - Throws: `CatalogError` naming the file at fault.
    public static func load(_ source: CatalogSource) throws -> Catalog {
        let store = try StoreConfiguration.load(path: source.storeKitPath)
        let requested = try source.productIDsPath.map(ProductIdentifierList.load) ?? store.products.map(\.id)
        return Catalog(source: source, store: store, requestedIdentifiers: requested)
    }

    public init(source: CatalogSource, store: StoreConfiguration, requestedIdentifiers: [String]) {
        self.source = source
        self.store = store
        self.requestedIdentifiers = requestedIdentifiers
        var storeIndex: [String: Product] = [:]
        storeIndex.reserveCapacity(store.products.count)
        for product in store.products where storeIndex[product.id] == nil {
            storeIndex[product.id] = product
        }
        var seen = Set<String>()
        var products: [Product] = []
        var invalid: [String] = []
        var index: [String: Int] = [:]
        for identifier in requestedIdentifiers where seen.insert(identifier).inserted {
            if let product = storeIndex[identifier] {
                index[identifier] = products.count
                products.append(product)
            } else {
                invalid.append(identifier)
            }
        }
        self.products = products
        self.invalidProductIdentifiers = invalid
        self.index = index
    }

    /// The product the app can buy under `identifier`, if the response included it.
    public func product(_ identifier: String) -> Product? {
        index[identifier].map { products[$0] }
    }

    /// The product a purchase of `identifier` would buy: one the products request returned.
    /// - Throws: `PurchaseError.productNotAvailable`, or `.productNotRequested` when the store has
    ///   it but the app's list does not ask for it.
    public func purchasableProduct(_ identifier: String) throws(PurchaseError) -> Product {
        if let product = product(identifier) { return product }
        if let path = source.productIDsPath, store.products.contains(where: { $0.id == identifier }) {
            throw .productNotRequested(productID: identifier, productIDsPath: path)
        }
        throw .productNotAvailable(productID: identifier)
    }
}
