import Foundation
import Testing

@testable import IAPSimKit

/// Which identifiers an app's products request finds: one rule for `SKProductsRequest`,
/// `Product.products(for:)` and the command line.
@Suite struct ProductsRequestTests {
    private func japan() throws -> (Catalog, StoreSession) {
        let catalog = try Catalog.load(
            CatalogSource(
                storeKitPath: Support.repositoryRoot + "/catalog/Products.storekit",
                productIDsPath: Support.repositoryRoot + "/catalog/IAPProductIDs.plist"),
            storefront: Storefront.named("JPN"))
        let clock = Support.Clock()
        return (catalog, StoreSession(store: Support.store(), now: { clock.now }, catalog: catalog))
    }

    @Test func foundInTheOrderAskedOnceEachTheRestInvalid() throws {
        let (catalog, session) = try japan()
        let response = try session.requestProducts(
            [
                "com.example.app.pro.monthly", "com.nobody.thing", "com.example.app.book", "com.example.app.seasonpass",
                "com.example.app.book",
            ], in: catalog)
        #expect(response.products.map(\.id) == ["com.example.app.pro.monthly", "com.example.app.book"])
        // Unknown to the store, or not sold in the buyer's storefront (Japan).
        #expect(response.invalidProductIdentifiers == ["com.nobody.thing", "com.example.app.seasonpass"])
    }

    @Test func theLocaleInForceIsTheSessionsElseTheCatalogs() throws {
        let (catalog, session) = try japan()
        #expect(try session.requestProducts([], in: catalog).localeIdentifier == catalog.localeIdentifier)
        _ = try session.setSetting(.locale, to: "fr_FR")
        #expect(try session.requestProducts([], in: catalog).localeIdentifier == "fr_FR")
    }
}
