import Foundation
import IAPSimTestSupport
import Testing

@testable import IAPSimKit

@Suite struct StorefrontPricingTests {
    private func catalog(_ storefront: String?) throws -> Catalog {
        try Catalog.load(
            CatalogSource(
                storeKitPath: Support.fixture("valid.storekit"), productIDsPath: Support.fixture("ids.plist")),
            storefront: storefront.flatMap(Storefront.named))
    }

    @Test func anotherStorefrontTakesItsPricesFromThePricingFile() throws {
        let japan = try catalog("JPN")
        #expect(japan.storefront.currencyCode == "JPY")
        #expect(japan.localeIdentifier == "ja_JP")
        #expect(japan.product("fx.levels")?.price == 600)
        #expect(japan.invalidProductIdentifiers == ["fx.missing"])
        let germany = try catalog("DEU")
        #expect(germany.products.map(\.id) == ["fx.coins"])
        #expect(germany.notAvailableInStorefront == ["fx.levels", "fx.plus.monthly"])
        #expect(throws: PurchaseError.notAvailableInStorefront(productID: "fx.levels", storefront: "DEU")) {
            try germany.purchasableProduct("fx.levels")
        }
    }

    @Test func theFilesOwnStorefrontUsesTheFilesPrices() throws {
        let own = try catalog("USA")
        #expect(own.product("fx.levels")?.price == Decimal(string: "4.99"))
        #expect(own.localeIdentifier == "en_US")
        #expect(try catalog(nil).products.count == own.products.count)
    }

    @Test func paidOffersDoNotCrossCurrencies() throws {
        let monthly = try #require(try catalog("JPN").product("fx.plus.monthly"))
        #expect(monthly.subscription?.introductoryOffer?.paymentMode == .freeTrial)  // free carries over
    }

    @Test func zeroDecimalCurrenciesRefuseFractions() throws {
        #expect(Currency.isValid(Decimal(160), in: "JPY"))
        #expect(!Currency.isValid(Decimal(string: "1.5")!, in: "JPY"))
        #expect(Currency.isValid(Decimal(string: "1.5")!, in: "EUR"))
        let path = Support.fixture("fractional-yen.storekit")
        #expect(
            throws: CatalogError.fractionalPrice(path: path, productID: "fy.coins", value: "1.5", currencyCode: "JPY")
        ) {
            try StoreKitConfiguration.load(path: path)
        }
    }

    @Test func theBestLocalizationIsChosen() throws {
        let coins = try #require(try catalog(nil).product("fx.coins"))
        #expect(coins.localization(for: "fr_CA")?.displayName == "Pièces")  // fr_CA → fr
        #expect(coins.localization(for: "de_DE", fallback: "en_US")?.displayName == "Coins")  // → the default
        #expect(coins.localization(for: "ja_JP")?.displayName == "Coins")  // → the first
    }

    @Test func subscriptionOffersAreRead() throws {
        let corpus = try External.corpus()
        let store = try StoreKitConfiguration.load(
            path: corpus + "/storekit/revenuecat-purchasetester-swiftui.storekit")
        let subscriptions = store.products.compactMap(\.subscription)
        #expect(subscriptions.reduce(0) { $0 + $1.offerCodes.count } == 8)
        #expect(subscriptions.reduce(0) { $0 + $1.promotionalOffers.count } == 5)
        let winback = try StoreKitConfiguration.load(path: corpus + "/storekit/rn-purchases-tester-winback.storekit")
        #expect(winback.products.compactMap(\.subscription).reduce(0) { $0 + $1.winBackOffers.count } == 2)
    }
}

@Suite struct CatalogCheckTests {
    @Test func findsEveryKindOfProblem() throws {
        let storeKit = Support.fixture("lint.storekit")
        let plist = Support.fixture("lint.plist")
        let findings = CatalogCheck.run(CatalogSource(storeKitPath: storeKit, productIDsPath: plist))
        let lines = findings.map(\.description)
        let expected = [
            "\(storeKit): lint.bad id!: has characters App Store Connect refuses",
            "\(storeKit): lint.ok: defined more than once",
            "\(storeKit): lint.durable: unknown type \"Durable\"",
            "\(storeKit): lint.fraction: price 120.5 is not valid in JPY",
            "\(storeKit): lint.nolocale: no localization for the default locale en_US",
            "\(storeKit): lint.gold.b: clashes with lint.gold.a: same level 1 and period in group Gold",
            "\(plist): lint.ok: listed more than once",
            "\(plist): lint.ghost: not in \(storeKit)",
            "\(storeKit): lint.gold.c: in the store but not in \(plist)",
            "\(Support.fixture("lint.prices.json")): lint.phantom: has prices but is not in",
        ]
        for line in expected {
            #expect(lines.contains { $0.hasPrefix(line) }, "missing: \(line)\n\(lines.joined(separator: "\n"))")
        }
        #expect(!lines.contains { $0.contains("lint.gold.c: clashes") })  // same level, other period: fine
    }

    @Test func aCleanCatalogHasNoFindings() {
        #expect(
            CatalogCheck.run(CatalogSource(storeKitPath: Support.fixture("valid.storekit"), productIDsPath: nil))
                .isEmpty)
    }

    @Test func brokenFilesAreOneFindingNotACrash() {
        let path = Support.fixture("truncated.storekit")
        let findings = CatalogCheck.run(CatalogSource(storeKitPath: path, productIDsPath: nil))
        #expect(findings.count == 1)
        #expect(findings.first?.productID == "-")
        #expect(CatalogCheck.run(CatalogSource(storeKitPath: "/nonexistent.storekit", productIDsPath: nil)).count == 1)
    }

    @Test func everyCorpusFileChecksWithoutCrashing() throws {
        let corpus = try External.corpus()
        for folder in ["storekit", "storekit-extra"] {
            for name in try FileManager().contentsOfDirectory(atPath: corpus + "/" + folder)
            where name.hasSuffix(".storekit") {
                let findings = CatalogCheck.run(
                    CatalogSource(storeKitPath: corpus + "/\(folder)/" + name, productIDsPath: nil))
                #expect(!findings.contains { $0.productID == "-" }, "\(name): \(findings)")
            }
        }
    }
}

@Suite struct StorefrontIdentifierTests {
    @Test func everyStorefrontHasAUniqueAppleIdentifier() {
        let ids = Storefront.all.map(\.appleID)
        #expect(ids.allSatisfy { $0 != nil })
        #expect(Set(ids.compactMap { $0 }).count == Storefront.all.count)
        #expect(Storefront.named("USA")?.appleID == "143441")
        #expect(Storefront.named("JPN")?.appleID == "143462")
        #expect(Storefront.named("GBR")?.appleID == "143444")
        // Found by halves: the list must be in ascending order, each code once.
        let codes = Storefront.appleIDs.map(\.code)
        #expect(zip(codes, codes.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// Every storefront by either code in any case; nothing else names one.
    @Test func everyStorefrontIsFoundByEitherCode() {
        for storefront in Storefront.all {
            for code in [storefront.countryCode, storefront.regionCode] {
                #expect(Storefront.named(code) == storefront)
                #expect(Storefront.named(code.lowercased()) == storefront)
            }
        }
        for code in ["", "U", "USAA", "ÜSA", "U-A", "12", "US ", "@SA", "[SA", "us\u{0}"] {
            #expect(Storefront.named(code) == nil, "\(code)")
        }
    }
}
