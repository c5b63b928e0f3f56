import Foundation
import Testing

@testable import IAPSimKit

/// Which localization a locale picks: the same language and script (inferred from the region
/// when absent, as CLDR's likely subtags do), then the language, then the catalog's `_locale`,
/// then the first.
@Suite struct LocaleMatchTests {
    let product: Product
    let other: Product
    let catalog: Catalog

    init() throws {
        catalog = try Catalog.load(
            CatalogSource(storeKitPath: Support.fixture("scripts.storekit"), productIDsPath: nil))
        product = try #require(catalog.products.first { $0.id == "fx.scripts" })
        other = try #require(catalog.products.first { $0.id == "fx.other" })
    }

    @Test(arguments: [
        ("zh_CN", "zh_Hans"), ("zh_Hans_CN", "zh_Hans"), ("zh-Hans", "zh_Hans"), ("zh_SG", "zh_Hans"),
        ("zh", "zh_Hans"), ("zh_TW", "zh_Hant"), ("zh_HK", "zh_Hant"), ("zh_MO", "zh_Hant"), ("zh_Hant", "zh_Hant"),
        ("zh_Hant_CN", "zh_Hant"), ("sr", "sr_Cyrl"), ("sr_RS", "sr_Cyrl"), ("sr_ME", "sr_Latn"),
        ("sr_Latn_RS", "sr_Latn"), ("pa_IN", "pa_Guru"), ("pa", "pa_Guru"), ("pa_PK", "pa_Arab"),
        ("uz_UZ", "uz_Latn"), ("uz_AF", "uz_Arab"), ("en_GB", "en_US"), ("de_AT", "de"),
        ("fr_FR", "de"),  // no French: the catalog's _locale, de_DE
        ("EN-us", "en_US"),
    ])
    func picksByScriptThenLanguageThenCatalog(locale: String, expected: String) {
        #expect(product.localization(for: locale, fallback: catalog.store.localeIdentifier)?.locale == expected)
    }

    @Test func theFirstWhenNothingElseFits() {
        #expect(other.localization(for: "ja_JP", fallback: catalog.store.localeIdentifier)?.locale == "fr")
        #expect(other.localization(for: "it_CH", fallback: "fr")?.locale == "it")
        #expect(product.localization(for: "ja_JP")?.locale == "en_US")
    }

    @Test func checkMatchesTheDefaultLocaleTheSameWay() {
        let japanese = Support.fixture("japanese-only.storekit")
        #expect(CatalogCheck.run(CatalogSource(storeKitPath: japanese, productIDsPath: nil)).isEmpty)
        // zh_Hant does not serve a zh_CN default: another script.
        let traditional = Support.fixture("traditional-only.storekit")
        let findings = CatalogCheck.run(CatalogSource(storeKitPath: traditional, productIDsPath: nil))
        #expect(findings.map(\.problem) == ["no localization for the default locale zh_CN"])
    }
}
