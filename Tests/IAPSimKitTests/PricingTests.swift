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

    /// `plainString` spells the digits itself: the text `description` gives, for every kind
    /// of value (whole, fractions, trailing zeros, negative, the full 38 digits, huge and tiny
    /// exponents), over 100,000 random values.
    @Test func plainStringIsDescription() throws {
        var generator = Support.SeededRandom(label: "plainString")
        let fixed: [Decimal] = [
            0, 1, -1, Decimal(1) / 3, Decimal(-2) / 3, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
            -Decimal.greatestFiniteMagnitude,
        ]
        let texts = ["0.99", "6.00", "100", "1e5", "-0.001", "0.000", "1.990", "123456789012345678901234567890123456"]
        var values = fixed + texts.compactMap { Decimal(string: $0) }
        for _ in 0..<100_000 {
            let digits = UInt64.random(
                in: 0...(UInt64.max >> UInt64.random(in: 0...63, using: &generator)), using: &generator)
            var value = Decimal(
                sign: Bool.random(using: &generator) ? .plus : .minus,
                exponent: Int.random(in: -30...30, using: &generator), significand: Decimal(digits))
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: value *= Decimal(UInt64.random(in: 0...UInt64.max, using: &generator))
            case 1: value /= Decimal(Int.random(in: 1...1000, using: &generator))
            case 2: value += Decimal(sign: .plus, exponent: Int.random(in: -5...5, using: &generator), significand: 7)
            default: break
            }
            values.append(value)
        }
        var differing: [String] = []
        for value in values where value.plainString != value.description {
            differing.append("\(value.description) written \(value.plainString)")
        }
        #expect(differing.isEmpty, "\(differing.count) of \(values.count) differ: \(differing.prefix(5))")
        #expect(Decimal.nan.plainString == Decimal.nan.description)
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
