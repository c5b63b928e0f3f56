import Foundation

/// What an app sees after its products request: the products it asked for that the store has,
/// in the order it asked, and the identifiers the store does not know
/// (`SKProductsResponse.invalidProductIdentifiers`).
public struct Catalog: Sendable {
    public var source: CatalogSource
    public var store: StoreKitConfiguration
    /// The app's identifier list, or every store product when there is none.
    public var requestedIdentifiers: [String]
    /// `SKProductsResponse.products`, in the order requested, each once.
    public var products: [Product]
    /// `SKProductsResponse.invalidProductIdentifiers`, in the order requested, each once.
    public var invalidProductIdentifiers: [String]
    /// Requested products the store has but does not sell in `storefront`
    /// (`StoreKitError.notAvailableInStorefront`), in the order requested.
    public var notAvailableInStorefront: [String]
    /// The storefront the buyer's account is in; prices are in its currency.
    public var storefront: Storefront
    /// The default price locale: the `.storekit` file's `_locale` in its own storefront,
    /// otherwise the storefront's own locale.
    public var localeIdentifier: String

    private var index: [String: Int]

    /// Loads both files and matches them up.
    /// - Parameter storefront: the buyer's storefront, if not the one the `.storekit` file
    ///   prices; prices then come from the pricing file beside it (`StorefrontPrices`).
    /// - Throws: `CatalogError` naming the file at fault.
    public static func load(_ source: CatalogSource, storefront: Storefront? = nil) throws(CatalogError) -> Catalog {
        let store = try StoreKitConfiguration.load(path: source.storeKitPath)
        let requested = try source.productIDsPath.map(ProductIdentifierList.load) ?? store.products.map(\.id)
        guard let storefront, storefront != store.storefront else {
            return Catalog(source: source, store: store, requestedIdentifiers: requested)
        }
        let prices = try StorefrontPrices.loadIfPresent(path: StorefrontPrices.path(forStoreKit: source.storeKitPath))
        return Catalog(
            source: source, store: store, requestedIdentifiers: requested, storefront: storefront, prices: prices)
    }

    /// - Parameters:
    ///   - storefront: nil for the `.storekit` file's own.
    ///   - prices: the other storefronts' prices; nil when there is no pricing file.
    public init(
        source: CatalogSource, store: StoreKitConfiguration, requestedIdentifiers: [String],
        storefront: Storefront? = nil, prices: StorefrontPrices? = nil
    ) {
        self.source = source
        self.store = store
        self.requestedIdentifiers = requestedIdentifiers
        let storefront = storefront ?? store.storefront
        let ownStorefront = storefront == store.storefront
        self.storefront = storefront
        self.localeIdentifier = ownStorefront ? store.localeIdentifier : storefront.localeIdentifier
        // Where each product is in the store (the first of an identifier) and, in another
        // storefront, its price there: a product is copied once, into the response, and a
        // 10,000-product file has as many to copy.
        var storeIndex: [String: (position: Int, price: Decimal?)] = [:]
        var unpriced = Set<String>()
        storeIndex.reserveCapacity(store.products.count)
        for (position, product) in store.products.enumerated() where storeIndex[product.id] == nil {
            guard !ownStorefront else {
                storeIndex[product.id] = (position, nil)
                continue
            }
            guard let price = prices?.price(product.id, in: storefront) else {
                unpriced.insert(product.id)
                continue
            }
            storeIndex[product.id] = (position, price)
        }
        var seen = Set<String>()
        var products: [Product] = []
        var invalid: [String] = []
        var unavailable: [String] = []
        var index: [String: Int] = [:]
        products.reserveCapacity(requestedIdentifiers.count)
        index.reserveCapacity(requestedIdentifiers.count)
        for identifier in requestedIdentifiers where seen.insert(identifier).inserted {
            if let (position, price) = storeIndex[identifier] {
                index[identifier] = products.count
                let product = store.products[position]
                products.append(price.map { Self.repriced(product, at: $0) } ?? product)
            } else if unpriced.contains(identifier) {
                unavailable.append(identifier)
            } else {
                invalid.append(identifier)
            }
        }
        self.products = products
        self.invalidProductIdentifiers = invalid
        self.notAvailableInStorefront = unavailable
        self.index = index
    }

    /// `product` at another storefront's price. Free offers carry over; offers with a price
    /// in the `.storekit` file's currency do not, since the pricing file gives none for them.
    private static func repriced(_ product: Product, at price: Decimal) -> Product {
        var product = product
        product.price = price
        if var subscription = product.subscription {
            let free = { (offer: SubscriptionOffer) in offer.paymentMode == .freeTrial }
            subscription.introductoryOffer = subscription.introductoryOffer.flatMap { free($0) ? $0 : nil }
            subscription.promotionalOffers = subscription.promotionalOffers.filter(free)
            subscription.offerCodes = subscription.offerCodes.filter(free)
            subscription.winBackOffers = subscription.winBackOffers.filter(free)
            product.subscription = subscription
        }
        return product
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
        if notAvailableInStorefront.contains(identifier) {
            throw .notAvailableInStorefront(productID: identifier, storefront: storefront.countryCode)
        }
        if let path = source.productIDsPath, store.products.contains(where: { $0.id == identifier }) {
            throw .productNotRequested(productID: identifier, productIDsPath: path)
        }
        throw .productNotAvailable(
            productID: identifier, storeKitPath: source.storeKitPath,
            nearest: Suggestion.ranked(identifier, among: products.map(\.id)))
    }
}
