import Foundation
import Testing

@testable import IAPSimKit

@Suite struct PriceFormatterTests {
    /// The exact scalars Foundation produces, no-break spaces and bidi marks included.
    @Test(arguments: [
        ("en_US", "USD", "1234.5", "$1,234.50"),
        ("en_GB", "USD", "0.99", "US$0.99"),
        ("en_GB", "GBP", "0.99", "£0.99"),
        ("de_DE", "USD", "0.99", "0,99\u{A0}$"),
        ("de_DE", "EUR", "1234.5", "1.234,50\u{A0}€"),
        ("fr_FR", "EUR", "1234.5", "1\u{202F}234,50\u{A0}€"),
        ("ja_JP", "JPY", "100", "¥100"),
        ("ar_SA", "USD", "1234.5", "\u{200F}١٬٢٣٤٫٥٠\u{A0}US$"),
        ("hi_IN", "INR", "1234567.89", "₹12,34,567.89"),
        ("pt_BR", "BRL", "1234.5", "R$\u{A0}1.234,50"),
    ])
    func formatsPerLocale(locale: String, currency: String, amount: String, expected: String) throws {
        let formatter = PriceFormatter(currencyCode: currency, localeIdentifier: locale)
        let text = formatter.string(for: try #require(Decimal(plainDecimal: amount)))
        #expect(text.unicodeScalars.map(\.value) == expected.unicodeScalars.map(\.value), "\(text)")
    }
}

@Suite struct LocaleNameTests {
    @Test(arguments: ["de_DE", "de-DE", "de_DE.UTF-8", "de_DE@euro", "de_DE.UTF-8@euro"])
    func acceptsTheWaysPeopleWriteALocale(name: String) {
        #expect(LocaleName.canonical(name) == "de_DE")
    }

    @Test func acceptsALanguageInAnotherRegion() {
        #expect(LocaleName.canonical("en_DE") == "en_DE")
        #expect(LocaleName.canonical("fr") == "fr")
    }

    @Test(arguments: ["xx_YY", "", "de_DE;rm", "klingon", "en_QQ"])
    func rejectsUnknownLocales(name: String) {
        #expect(LocaleName.canonical(name) == nil)
    }

    /// The code lists are searched by halves: each must stay sorted, with no code twice, and
    /// hold what the locales ICU knows are built from.
    @Test func theCodeListsAreSortedAndFound() {
        for codes in [LocaleCodes.languages, LocaleCodes.regions, LocaleCodes.scripts] {
            #expect(zip(codes, codes.dropFirst()).allSatisfy { $0 < $1 })
            #expect(codes.allSatisfy { LocaleCodes.contains(codes, $0) })
        }
        #expect(LocaleCodes.contains(LocaleCodes.languages, "en") && !LocaleCodes.contains(LocaleCodes.languages, "zz"))
        #expect(LocaleCodes.contains(LocaleCodes.regions, "US") && LocaleCodes.contains(LocaleCodes.scripts, "Hant"))
    }
}

@Suite struct StrictDecimalTests {
    @Test(arguments: ["0.99", "12", "6.00", "0.5", "199.99"])
    func parsesPlainDecimalsExactly(text: String) throws {
        let value = try #require(Decimal(plainDecimal: text))
        #expect(value == Decimal(string: text))
    }

    @Test(arguments: ["1,99", "0.99abc", "", ".5", "5.", "-1", "1e3", " 1", "1.2.3", "٣"])
    func rejectsAnythingElse(text: String) {
        #expect(Decimal(plainDecimal: text) == nil)
    }

    @Test func plainStringIsLocaleIndependent() {
        #expect(Decimal(plainDecimal: "2.97")!.plainString == "2.97")
        #expect((Decimal(plainDecimal: "0.99")! * 3).plainString == "2.97")
    }

    /// A listing remembers each price's text: the text `plainString` gives, each time.
    @Test func rememberedTextsAreThePlainStrings() throws {
        var texts = PlainDecimalTexts()
        let prices = ["6", "6.00", "0.99", "1999.5", "0.001"].compactMap(Decimal.init(plainDecimal:))
        let hundredth = Decimal(sign: .plus, exponent: -2, significand: 1)
        let values = prices + [prices[2] * 3, Decimal(1) / 3, prices[0] * hundredth]
        for _ in 0..<2 {
            for value in values { #expect(texts.text(value) == value.plainString) }
        }
    }
}

@Suite struct StorefrontTests {
    @Test func knowsStorefrontsByEitherCode() {
        #expect(Storefront.named("USA")?.currencyCode == "USD")
        #expect(Storefront.named("de")?.countryCode == "DEU")
        #expect(Storefront.named("JPN")?.currencyCode == "JPY")
        #expect(Storefront.named("XYZ") == nil)
    }

    @Test func everyStorefrontsLocaleIsKnown() {
        for storefront in Storefront.all {
            #expect(LocaleName.canonical(storefront.localeIdentifier) != nil, "\(storefront.countryCode)")
        }
        #expect(Set(Storefront.all.map(\.countryCode)).count == Storefront.all.count)
    }
}

@Suite struct SubscriptionPeriodTests {
    @Test func parsesAndAdvances() throws {
        let month = try #require(SubscriptionPeriod(iso8601: "P1M"))
        let start = ISO8601DateFormatter().date(from: "2026-01-31T10:00:00Z")!
        #expect(ISO8601DateFormatter().string(from: month.advance(start)) == "2026-02-28T10:00:00Z")
        #expect(SubscriptionPeriod(iso8601: "P2W")?.localizedDescription == "2 weeks")
        for bad in ["P", "1M", "P0M", "PXM", "P1Q", "P-1M", "P+1M"] {
            #expect(SubscriptionPeriod(iso8601: bad) == nil, "\(bad)")
        }
    }
}

/// Price texts remembered in the state folder (`PriceTexts`): a later command reads them
/// instead of starting the formatting library, and any doubt formats them again.
@Suite struct PriceTextsTests {
    let formatter = PriceFormatter(currencyCode: "EUR", localeIdentifier: "de_DE")

    /// The texts of `prices` by a new `PriceTexts` on `path`, and how many were formatted.
    private func texts(_ prices: [Decimal], path: String, build: String = "1") -> ([String], Int) {
        let memo = PriceTexts(path: path, build: build)
        var formatted = 0
        let texts = prices.map { price in
            memo.text(for: price, by: formatter) { price in
                formatted += 1
                return formatter.string(for: price)
            }
        }
        memo.save()
        return (texts, formatted)
    }

    @Test func aTextFormattedOnceIsReadByTheNextCommand() throws {
        let path = Support.temporaryDirectory() + "/" + PriceTexts.fileName
        #expect(
            texts([1234.5, 0.99, 1234.5], path: path) == (
                ["1.234,50\u{00A0}€", "0,99\u{00A0}€", "1.234,50\u{00A0}€"], 2
            ))
        #expect(texts([1234.5, 0.99], path: path) == (["1.234,50\u{00A0}€", "0,99\u{00A0}€"], 0))
        // Another build's texts are formatted again, and kept for that build.
        #expect(texts([0.99], path: path, build: "2") == (["0,99\u{00A0}€"], 1))
        #expect(texts([0.99], path: path, build: "2") == (["0,99\u{00A0}€"], 0))
    }

    @Test(arguments: ["", "not json", "{\"format\": 1, \"build\": \"1\", \"texts\": [1]}"])
    func aFileThatDoesNotReadIsFormattedAgainAndReplaced(content: String) throws {
        let path = Support.temporaryDirectory() + "/" + PriceTexts.fileName
        try Data(content.utf8).write(to: URL(fileURLWithPath: path))
        #expect(texts([0.99], path: path) == (["0,99\u{00A0}€"], 1))
        #expect(texts([0.99], path: path) == (["0,99\u{00A0}€"], 0))
    }

    @Test func noFolderNoFile() {
        let path = Support.temporaryDirectory() + "/not-made/" + PriceTexts.fileName
        #expect(texts([0.99], path: path) == (["0,99\u{00A0}€"], 1))
        #expect(!FileManager().fileExists(atPath: path))
    }
}
