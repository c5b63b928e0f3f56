import Foundation
import Testing

@testable import iapsim

@Suite struct CatalogFidelityTests {
    @Test func japanShowsYenFormattedForJapan() throws {
        let output = try Harness().json("--storefront", "JPN", "list")
        let products = try #require(output["products"] as? [[String: Any]])
        let book = try #require(products.first { $0["id"] as? String == "com.example.app.book" })
        #expect(book["displayPrice"] as? String == "¥480")
        #expect(book["currencyCode"] as? String == "JPY")
        #expect(output["notAvailableInStorefront"] as? [String] == ["com.example.app.seasonpass"])
        let text = Harness().run("list", "--storefront", "JPN")
        #expect(text.stdout.contains("¥3,800"))
        #expect(text.stderr.contains("not sold in the JPN storefront: 'com.example.app.seasonpass'"))
    }

    @Test func frenchNamesWhereTheCatalogHasThem() throws {
        let products = try #require(try Harness().json("list", "--locale", "fr_FR")["products"] as? [[String: Any]])
        #expect(
            products.first { $0["id"] as? String == "com.example.app.book" }?["displayName"] as? String
                == "Le livre Swift")
        #expect(products.first?["displayPrice"] as? String == "0,99\u{A0}$US")
    }

    @Test func aProductNotSoldInTheStorefrontExits5() {
        let result = Harness().run("buy", "com.example.app.seasonpass", "--storefront", "JPN")
        #expect(result.status == 5)
        #expect(result.stderr.contains("notAvailableInStorefront"))
    }

    @Test func theStorefrontSettingPersists() throws {
        let harness = Harness()
        #expect(harness.run("settings", "set", "storefront", "DEU").status == 0)
        let buy = try harness.json("buy", "com.example.app.book")
        let transaction = try #require(buy["transaction"] as? [String: Any])
        #expect(transaction["currency"] as? String == "EUR")
        #expect(transaction["storefrontCountryCode"] as? String == "DEU")
        #expect(buy["displayPrice"] as? String == "2,99\u{A0}€")
    }

    @Test func subscriptionDetailsInListJSON() throws {
        let products = try #require(try Harness().json("list")["products"] as? [[String: Any]])
        let monthly = try #require(products.first { $0["id"] as? String == "com.example.app.pro.monthly" })
        let info = try #require(monthly["subscription"] as? [String: Any])
        #expect(info["groupLevel"] as? Int == 2)
        #expect((info["subscriptionPeriod"] as? [String: Any])?["unit"] as? String == "month")
        let intro = try #require(info["introductoryOffer"] as? [String: Any])
        #expect(intro["paymentMode"] as? String == "free")
        #expect(intro["summary"] as? String == "free for 1 week")
        #expect(Harness().run("list").stdout.contains("Pro · level 2 · every month · intro: free for 1 week"))
    }

    @Test func checkExitsCleanOr65WithOneLinePerFinding() {
        let fixtures = Harness.repositoryRoot + "/Tests/IAPSimKitTests/Fixtures"
        let clean = Harness(environment: ["IAPSIM_CATALOG": ""]).run(
            "check", "--storekit", fixtures + "/valid.storekit")
        #expect(clean.status == 0)
        let dirty = Harness().run(
            "check", "--storekit", fixtures + "/lint.storekit", "--product-ids", fixtures + "/lint.plist")
        #expect(dirty.status == 65)
        let lines = dirty.stdout.split(separator: "\n")
        #expect(lines.count >= 10)
        #expect(lines.allSatisfy { $0.split(separator: ":").count >= 3 })
        #expect(dirty.stderr.hasSuffix("problems found.\n"))
    }
}
