import Foundation
import IAPSimTestSupport
import Testing

@testable import IAPSimKit

@Suite struct CatalogTests {
    @Test func matchesTheAppsListAgainstTheStoreInListOrder() throws {
        let catalog = try Support.validCatalog()
        #expect(catalog.products.map(\.id) == ["fx.coins", "fx.levels", "fx.plus.monthly"])
        #expect(catalog.invalidProductIdentifiers == ["fx.missing"])
        #expect(catalog.requestedIdentifiers.count == 5)  // the duplicate is asked for once
    }

    @Test func readsTypesPricesAndSubscriptionDetails() throws {
        let store = try StoreKitConfiguration.load(path: Support.fixture("valid.storekit"))
        #expect(
            store.products.map(\.type) == [.consumable, .nonConsumable, .nonRenewable, .autoRenewable, .autoRenewable])
        let monthly = try #require(store.products.first { $0.id == "fx.plus.monthly" })
        #expect(monthly.price == Decimal(string: "2.99"))
        #expect(monthly.subscription?.period == SubscriptionPeriod(value: 1, unit: .month))
        #expect(monthly.subscription?.groupID == "G1")
        #expect(monthly.subscription?.groupLevel == 2)
        #expect(monthly.subscription?.introductoryOffer?.paymentMode == .freeTrial)
        #expect(store.storefront.currencyCode == "USD")
        #expect(store.localeIdentifier == "en_US")
    }

    @Test func storefrontSetsCurrencyAndDefaultLocale() throws {
        let store = try StoreKitConfiguration.load(path: Support.fixture("japan.storekit"))
        #expect(store.storefront.countryCode == "JPN")
        #expect(store.storefront.currencyCode == "JPY")
        #expect(store.localeIdentifier == "ja_JP")
    }

    @Test func withoutAnIdentifierListEveryStoreProductIsRequested() throws {
        let catalog = try Catalog.load(
            CatalogSource(storeKitPath: Support.fixture("valid.storekit"), productIDsPath: nil))
        #expect(catalog.products.count == 5)
        #expect(catalog.invalidProductIdentifiers.isEmpty)
    }

    @Test func purchasableProductExplainsWhyNot() throws {
        let catalog = try Support.validCatalog()
        #expect(
            throws: PurchaseError.productNotAvailable(
                productID: "fx.nothing", storeKitPath: catalog.source.storeKitPath)
        ) {
            try catalog.purchasableProduct("fx.nothing")
        }
        #expect(
            throws: PurchaseError.productNotRequested(
                productID: "fx.pass", productIDsPath: Support.fixture("ids.plist"))
        ) {
            try catalog.purchasableProduct("fx.pass")
        }
    }

    @Test(arguments: [
        ("bad-price.storekit", "fx.levels: displayPrice \"4,99\" is not a plain decimal"),
        ("unknown-type.storekit", "fx.levels: unknown product type \"Durable\""),
        ("wrong-type.storekit", "products[1].displayPrice: expected a string"),
        ("unknown-storefront.storekit", "settings._storefront: unknown storefront \"XYZ\""),
        ("truncated.storekit", "malformed JSON"),
        ("empty.storekit", "the file is empty"),
    ])
    func badStoreFilesNameTheFileAndTheFault(file: String, message: String) throws {
        let path = Support.fixture(file)
        let error = try #require(throws: CatalogError.self) { try StoreKitConfiguration.load(path: path) }
        let text = try #require(error.errorDescription)
        #expect(text.hasPrefix(path + ": "))
        #expect(text.contains(message), "\(text)")
    }

    /// An editor may save a `.storekit` with a UTF-8 byte order mark; Xcode reads it, and so
    /// does iapsim, with a fault's byte offset still counted in the file.
    @Test func aByteOrderMarkIsSkipped() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: Support.fixture("valid.storekit")))
        let path = Support.temporaryDirectory() + "/bom.storekit"
        try (Data([0xEF, 0xBB, 0xBF]) + original).write(to: URL(fileURLWithPath: path))
        let plain = try StoreKitConfiguration.load(path: Support.fixture("valid.storekit"))
        let marked = try StoreKitConfiguration.load(path: path)
        #expect(marked.products.map(\.id) == plain.products.map(\.id) && !marked.products.isEmpty)
        try Data([0xEF, 0xBB, 0xBF, UInt8(ascii: "{"), UInt8(ascii: "x")]).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: CatalogError.self) { try StoreKitConfiguration.load(path: path) }
        #expect(error.errorDescription?.contains("malformed JSON at byte 4") == true, "\(error)")
    }

    @Test func aMissingFileIsReportedAsMissing() {
        #expect(throws: CatalogError.fileNotFound(path: "/nonexistent/Products.storekit")) {
            try StoreKitConfiguration.load(path: "/nonexistent/Products.storekit")
        }
    }

    @Test func theBundledCatalogIsTheDemoStore() throws {
        let catalog = try Catalog.load(
            CatalogSource(
                storeKitPath: Support.repositoryRoot + "/catalog/Products.storekit",
                productIDsPath: Support.repositoryRoot + "/catalog/IAPProductIDs.plist"))
        let counts = Dictionary(grouping: catalog.products, by: \.type).mapValues(\.count)
        #expect(counts[.consumable]! >= 2)
        #expect(counts[.nonConsumable]! >= 2)
        #expect(counts[.autoRenewable]! >= 2)
        #expect(counts[.nonRenewable]! >= 1)
        #expect(catalog.product("Demo.TechoverInAppPurchase.co.Apple.Book")?.type == .nonConsumable)
        #expect(catalog.product("com.razeware.inapprage.nightlyrage")?.type == .nonConsumable)
        #expect(catalog.products.contains { $0.subscription?.introductoryOffer != nil })
        #expect(catalog.products.allSatisfy { $0.localizations.count >= 2 })
        #expect(catalog.invalidProductIdentifiers.count == 1)
    }
}

@Suite struct CorpusTests {
    /// Every real `.storekit` file Xcode saved must load, with the product counts an
    /// independent JSON reading gives.
    @Test func everyCorpusStoreKitFileLoads() throws {
        let corpus = try External.corpus()
        var checked = 0
        for folder in ["storekit", "storekit-extra"] {
            let directory = corpus + "/" + folder
            for name in (try? FileManager().contentsOfDirectory(atPath: directory)) ?? []
            where name.hasSuffix(".storekit") {
                let path = directory + "/" + name
                let store = try StoreKitConfiguration.load(path: path)
                let raw =
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                    as! [String: Any]
                let plain =
                    (raw["products"] as? [Any] ?? []).count + (raw["nonRenewingSubscriptions"] as? [Any] ?? []).count
                let grouped = (raw["subscriptionGroups"] as? [[String: Any]] ?? [])
                    .reduce(0) { $0 + ($1["subscriptions"] as? [Any] ?? []).count }
                #expect(store.products.count == plain + grouped, "\(name)")
                checked += 1
            }
        }
        #expect(checked >= 12)
    }

    @Test func everyCorpusPlistLoads() throws {
        let corpus = try External.corpus()
        let directory = corpus + "/plist"
        let expected = [
            "apple-storekitsuite-productids.plist": 1, "jc-subscription-productidentifiers.plist": 2,
            "squared-products.plist": 1, "storehelper-sample-products.plist": 11,
        ]
        for (name, count) in expected {
            #expect(try ProductIdentifierList.load(path: directory + "/" + name).count == count, "\(name)")
        }
    }

    @Test func storeHelpersPlistMatchesItsStoreKitFile() throws {
        let corpus = try External.corpus()
        let catalog = try Catalog.load(
            CatalogSource(
                storeKitPath: corpus + "/storekit/storehelper-sample-products.storekit",
                productIDsPath: corpus + "/plist/storehelper-sample-products.plist"))
        #expect(catalog.invalidProductIdentifiers.isEmpty)
        #expect(catalog.products.count == 11)
    }
}
