import Foundation

extension StoreSession {
    /// The catalog priced in the buyer's storefront, and a session over `store` with the
    /// catalog's settings as its defaults: what every operation that acts as the app needs.
    ///
    /// The storefront is `storefront` when given (`SKTestSession.storefront` for this run), else
    /// the session's `storefront` setting, else the `.storekit` file's own.
    public static func open(
        _ source: CatalogSource, store: StateStore, storefront: Storefront?, now: @escaping @Sendable () -> Date,
        events: @escaping @Sendable (StoreEvent) -> Void
    ) throws -> (Catalog, StoreSession) {
        var storefront = storefront
        if storefront == nil, store.exists, let code = try store.read().simulation.settings[.storefront] {
            storefront = Storefront.named(code)
        }
        let catalog = try Catalog.load(source, storefront: storefront)
        return (catalog, StoreSession(store: store, now: now, catalog: catalog, events: events))
    }
}
