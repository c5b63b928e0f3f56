import Foundation

/// What `SKProductsRequest` / `Product.products(for:)` returns to the app, with what the
/// account holds of each product, so a front end can show them side by side.
public struct ProductsResponse: Sendable {
    /// The products the store has for the app's identifiers, in the app's order.
    public var products: [Product]
    /// `SKProductsResponse.invalidProductIdentifiers`: identifiers the store lacks.
    public var invalidProductIdentifiers: [String]
    /// Identifiers the store has but does not sell in the buyer's storefront.
    public var notAvailableInStorefront: [String]
    /// The account and the app's record at the moment of the request.
    public var status: AccountStatus
    /// The session settings in force (the locale setting among them).
    public var settings: SessionSettings
    /// The locale products are shown in: the session's `locale` when set (`SKTestSession`'s
    /// locale), else the catalog's (its storefront's, or the `.storekit` file's own).
    public var localeIdentifier: String
}

extension StoreSession {
    /// Requests `catalog`'s products as the app does at launch.
    /// - Throws: `SimulationError.simulated` when the session simulates a Load Products error.
    public func requestProducts(in catalog: Catalog) throws -> ProductsResponse {
        // The app is launching: Transaction.updates delivers what was completed outside it.
        let (state, moment) = try launch { state, moment in (state, moment) }
        if let error = moment.settings.simulatedError(.loadProductsError) {
            throw SimulationError.simulated(api: "Loading products", error: error)
        }
        return ProductsResponse(
            products: catalog.products, invalidProductIdentifiers: catalog.invalidProductIdentifiers,
            notAvailableInStorefront: catalog.notAvailableInStorefront,
            status: AccountStatus(state: state, at: moment.now, environment: moment.settings.environment),
            settings: moment.settings,
            localeIdentifier: moment.settings.localeOverride ?? catalog.localeIdentifier)
    }

    /// Requests the products of `identifiers`, as an app's `SKProductsRequest` or
    /// `Product.products(for:)` does: those the store sells in the buyer's storefront, in the
    /// order asked and once each; the rest (unknown to the store, or not sold in the storefront)
    /// are `invalidProductIdentifiers`, in the order asked.
    /// - Throws: `SimulationError.simulated` when the session simulates a Load Products error.
    public func requestProducts(_ identifiers: some Sequence<String>, in catalog: Catalog) throws -> ProductsResponse {
        var response = try requestProducts(in: catalog)
        var seen = Set<String>()
        var found: [Product] = []
        var invalid: [String] = []
        for id in identifiers where seen.insert(id).inserted {
            if let product = catalog.product(id), !catalog.notAvailableInStorefront.contains(id) {
                found.append(product)
            } else {
                invalid.append(id)
            }
        }
        response.products = found
        response.invalidProductIdentifiers = invalid
        return response
    }
}
