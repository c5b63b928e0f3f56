import Foundation
import Testing

@testable import iapsim

@Suite struct ListCommandTests {
    @Test func listsTheCatalogWithLocalizedPricesAndWarnsOfInvalidIdentifiers() {
        let result = Harness().run("list")
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("PRODUCT") == true)
        #expect(lines.contains { $0.contains("Demo.TechoverInAppPurchase.co.Apple.Book") && $0.contains("$0.99") })
        #expect(result.stderr.contains("'com.example.app.retired' (invalidProductIdentifiers)"))
        #expect(!result.stdout.contains("retired"))
    }

    @Test func jsonHasProductsAndInvalidIdentifiers() throws {
        let output = try Harness().json("list")
        let products = try #require(output["products"] as? [[String: Any]])
        let book = try #require(products.first { $0["id"] as? String == "Demo.TechoverInAppPurchase.co.Apple.Book" })
        #expect(book["type"] as? String == "nonConsumable")
        #expect(book["price"] as? String == "0.99")
        #expect(book["currencyCode"] as? String == "USD")
        #expect(book["displayPrice"] as? String == "$0.99")
        #expect(book["displayName"] as? String == "Apple Book")
        #expect(output["invalidProductIdentifiers"] as? [String] == ["com.example.app.retired"])
    }

    @Test func localeOverridesPricesAndTexts() throws {
        let harness = Harness(environment: ["IAPSIM_LOCALE": "de_DE.UTF-8"])
        let products = try #require(try harness.json("list")["products"] as? [[String: Any]])
        let book = try #require(products.first { $0["id"] as? String == "Demo.TechoverInAppPurchase.co.Apple.Book" })
        #expect(book["displayPrice"] as? String == "0,99\u{A0}$")
        #expect(book["displayName"] as? String == "Apple-Buch")
        let flag = try #require(try harness.json("list", "--locale", "fr-FR")["products"] as? [[String: Any]])
        #expect(flag.first?["displayName"] as? String == "100 pièces")
    }

    @Test func anUnknownLocaleIsAUsageErrorNamingItsSource() {
        let flag = Harness().run("list", "--locale", "xx_YY")
        #expect(flag.status == 64)
        #expect(flag.stderr.contains("--locale xx_YY: unknown locale"))
        let env = Harness(environment: ["IAPSIM_LOCALE": "zz"]).run("list")
        #expect(env.status == 64)
        #expect(env.stderr.contains("IAPSIM_LOCALE zz"))
    }

    @Test func catalogTextCannotSendEscapeSequences() throws {
        let fixtures = Harness.repositoryRoot + "/Tests/IAPSimKitTests/Fixtures"
        let result = Harness().run(
            "list", "--storekit", fixtures + "/control-chars.storekit", "--catalog", fixtures,
            "--product-ids", fixtures + "/ids.plist")
        #expect(result.status == 0)
        #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
        #expect(result.stdout.contains("Evil\\u{1B}[31mRed\\u{202E}Txet"))
    }

    @Test func missingAndBadCatalogFilesHaveTheirCodes() {
        let missing = Harness().run("list", "--catalog", "/nonexistent")
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("Error: /nonexistent/Products.storekit: no such file; point --catalog"))
        #expect(missing.stderr.filter { $0 == "\n" }.count == 1)
        let fixtures = Harness.repositoryRoot + "/Tests/IAPSimKitTests/Fixtures"
        let bad = Harness().run("list", "--storekit", fixtures + "/bad-price.storekit")
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("bad-price.storekit: fx.levels: displayPrice \"4,99\""))
        let plist = Harness().run("list", "--product-ids", fixtures + "/ids-non-string.plist")
        #expect(plist.status == 65)
        #expect(plist.stderr.contains("ids-non-string.plist: element 1 is a number"))
    }
}

@Suite struct BuyCommandTests {
    @Test func buyThenStatus() throws {
        let harness = Harness()
        let buy = harness.run("buy", "Demo.TechoverInAppPurchase.co.Apple.Book")
        #expect(buy.status == 0)
        #expect(buy.stdout == "Purchased “Apple Book” for $0.99. Transaction 1.\n")
        let again = harness.run("buy", "Demo.TechoverInAppPurchase.co.Apple.Book")
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("You've already purchased this. It will be restored for free"))
        let status = try harness.json("status")
        #expect(status["purchasedProductIdentifiers"] as? [String] == ["Demo.TechoverInAppPurchase.co.Apple.Book"])
    }

    @Test func consumableQuantityAddsToTheBalance() throws {
        let harness = Harness()
        let output = try harness.json("buy", "com.example.app.coins100", "--quantity", "3")
        #expect(output["result"] as? String == "purchased")
        #expect(output["balance"] as? Int == 3)
        #expect((output["transaction"] as? [String: Any])?["purchasedQuantity"] as? Int == 3)
        #expect(try harness.json("status")["consumables"] as? [String: Int] == ["com.example.app.coins100": 3])
    }

    @Test func onATerminalItAsksAndNoIsACancel() throws {
        let harness = Harness()
        harness.terminal = true
        harness.answers = ["n"]
        let declined = harness.run("buy", "Demo.TechoverInAppPurchase.co.Apple.Book")
        #expect(declined.status == 2)
        #expect(declined.stderr.hasPrefix("Buy “Apple Book” for $0.99? [y/N] "))
        #expect(try harness.json("status")["purchasedProductIdentifiers"] as? [String] == [])
        harness.answers = ["y"]
        #expect(harness.run("buy", "Demo.TechoverInAppPurchase.co.Apple.Book").status == 0)
        harness.answers = []
        #expect(harness.run("buy", "com.example.app.book", "--yes").status == 0)
    }

    @Test func anUnknownProductExits5NamingIt() {
        let result = Harness().run("buy", "com.example.app.nothing")
        #expect(result.status == 5)
        #expect(result.stderr.contains("com.example.app.nothing"))
        #expect(result.stdout.isEmpty)
    }

    @Test func quantityOnANonConsumableIsRefused() {
        #expect(Harness().run("buy", "com.example.app.book", "--quantity", "2").status == 64)
    }
}

@Suite struct RestoreAndResetTests {
    @Test func reinstallThenRestore() throws {
        let harness = Harness()
        #expect(harness.run("restore").stdout == "No purchases to restore.\n")
        _ = harness.run("buy", "com.example.app.book")
        _ = harness.run("buy", "com.example.app.coins100")
        _ = harness.run("buy", "com.example.app.pro.monthly")
        #expect(harness.run("reset", "--local").status == 0)
        #expect(try harness.json("status")["purchasedProductIdentifiers"] as? [String] == [])
        #expect(harness.run("restore").stdout == "Restored 2 purchases.\n")
        let status = try harness.json("status")
        #expect(
            status["purchasedProductIdentifiers"] as? [String] == [
                "com.example.app.book", "com.example.app.pro.monthly",
            ])
        #expect(status["consumables"] as? [String: Int] == [:])
    }

    @Test func resetEverythingAsksOnATerminal() throws {
        let harness = Harness()
        _ = harness.run("buy", "com.example.app.book")
        harness.terminal = true
        harness.answers = ["no"]
        #expect(harness.run("reset").status == 2)
        #expect(try harness.json("restore")["count"] as? Int == 1)
        #expect(harness.run("reset", "--yes").status == 0)
        #expect(harness.run("restore").stdout == "No purchases to restore.\n")
    }

    @Test func aCorruptStateFileFails65AndIsLeftAlone() throws {
        let harness = Harness()
        try FileManager().createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        let path = harness.stateDirectory + "/purchases.json"
        try Data("{oops".utf8).write(to: URL(fileURLWithPath: path))
        for arguments in [["buy", "com.example.app.book"], ["status"], ["restore"], ["reset", "--local"], ["list"]] {
            let result = harness.run(arguments)
            #expect(result.status == 65, "\(arguments)")
            #expect(result.stderr.contains(path), "\(arguments)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{oops")
        // The way out: reset --yes erases what it cannot read, and says what it removed.
        let reset = harness.run("reset", "--yes")
        #expect(reset.status == 0)
        #expect(reset.stdout == "Removed \(path)\n")
        #expect(harness.run("status").status == 0)
    }
}

@Suite struct HelpCommandTests {
    @Test func helpCommandAndFlagAgree() {
        let harness = Harness()
        for spec in Registry.visible {
            let viaHelp = harness.run("help", spec.name)
            let viaFlag = harness.run(spec.name, "--help")
            #expect(viaHelp.status == 0)
            #expect(viaHelp.stdout == viaFlag.stdout)
        }
        #expect(harness.run("--version").stdout == "iapsim \(HelpText.version)\n")
    }

    /// `help COMMAND --json` lists the command's own options as its help page does, which is
    /// what the page's "Buy with options" form is built from: a flag has no value name, an
    /// option of a known set gives the set (every simulated error `--outcome fail=` takes).
    @Test func helpAsJSONListsTheCommandsOptions() throws {
        let harness = Harness()
        let help = try harness.json("help", "buy")
        let options = try #require(help["options"] as? [[String: Any]])
        #expect(options.map { $0["name"] as? String } == Buy.spec.options.map(\.name))
        let byName = Dictionary(uniqueKeysWithValues: options.map { ($0["name"] as? String ?? "", $0) })
        #expect(byName["quantity"]?["values"] as? [String] == (1...10).map(String.init))
        #expect(byName["quantity"]?["valueName"] as? String == "N")
        #expect(byName["yes"]?["valueName"] is NSNull)
        #expect(byName["yes"]?["short"] as? String == "y")
        let outcomes = try #require(byName["outcome"]?["values"] as? [String])
        #expect(outcomes.prefix(5) == ["success", "cancel", "fail", "ask-to-buy", "interrupted"])
        #expect(outcomes.contains("fail=StoreKitError.networkError"))
        #expect(outcomes.contains("fail=Product.PurchaseError.ineligibleForOffer"))
        #expect((byName["app-account-token"]?["help"] as? String)?.contains("UUID") == true)
        // A topic that is not a command has no options.
        #expect(try harness.json("help", "exit-codes")["options"] == nil)
    }

    @Test func usageErrorsAreOneLineOnStderr() {
        let result = Harness().run("buy")
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        #expect(result.stderr.hasPrefix("Error: "))
    }
}

@Suite struct EnvironmentTests {
    @Test func withNowhereForStateTheErrorSaysWhatToSet() {
        let result = Harness(environment: ["IAPSIM_STATE_DIR": ""]).run("status")  // and no HOME
        #expect(result.status == 73)
        #expect(result.stderr.contains("HOME is not set; pass --state-dir DIR or set IAPSIM_STATE_DIR"))
    }

    @Test func aBadLockTimeoutIsAUsageError() {
        let result = Harness(environment: ["IAPSIM_LOCK_TIMEOUT": "-1"]).run("status")
        #expect(result.status == 64)
        #expect(result.stderr.contains("IAPSIM_LOCK_TIMEOUT=-1"))
    }

    @Test func aRelativeStateDirIsResolvedAgainstTheWorkingDirectory() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.book", "--state-dir", "relative").status == 0)
        #expect(FileManager().fileExists(atPath: harness.stateDirectory + "/relative/purchases.json"))
    }
}
