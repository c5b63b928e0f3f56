import Foundation
import IAPSimKit
import Testing

@testable import iapsim

@Suite struct ArgumentParserTests {
    @Test func optionsGoBeforeOrAfterTheCommand() throws {
        let before = try ArgumentParser.parse(["--json", "--state-dir", "/s", "status"])
        let after = try ArgumentParser.parse(["status", "--state-dir=/s", "--json"])
        #expect(before.options == after.options)
        #expect(before.options.stateDirectory == "/s")
        #expect(before.options.json)
        #expect(before.command as? Status == after.command as? Status)
        #expect((before.command as? Status)?.withJWS == false)
    }

    @Test func buyTakesAnIdentifierQuantityAndYes() throws {
        let buy = try parsed(["buy", "com.x.coins", "--quantity", "3", "-y"], as: Buy.self)
        #expect(buy == Buy(request: try PurchaseRequest(productID: "com.x.coins", quantity: 3), assumeYes: true))
    }

    @Test func listIsAnAliasOfListProducts() throws {
        #expect(try ArgumentParser.parse(["list"]).command is ListProducts)
        #expect(try ArgumentParser.parse(["list-products"]).command is ListProducts)
    }

    @Test func doubleDashEndsOptions() throws {
        let buy = try parsed(["buy", "--yes", "--", "--weird-id"], as: Buy.self)
        #expect(buy == Buy(request: try PurchaseRequest(productID: "--weird-id"), assumeYes: true))
        #expect(try parsed(["--", "buy", "-odd.id"], as: Buy.self).productID == "-odd.id")
    }

    @Test func helpAndVersion() throws {
        #expect(try parsed(["--help"], as: Help.self).topic == nil)
        #expect(try parsed(["buy", "--help"], as: Help.self).topic?.word == "buy")
        #expect(try parsed(["help", "restore"], as: Help.self).topic?.word == "restore")
        #expect(try ArgumentParser.parse(["--version"]).command is Version)
    }

    @Test func resetScopes() throws {
        func scope(_ arguments: [String]) throws -> Reset.Expected {
            let reset = try parsed(arguments, as: Reset.self)
            return Reset.Expected(reset.scope, reset.assumeYes)
        }
        #expect(try scope(["reset", "--local"]) == Reset.Expected(.local, false))
        #expect(try scope(["reset", "--transactions", "-y"]) == Reset.Expected(.transactions, true))
        #expect(try scope(["reset", "--settings"]) == Reset.Expected(.settings, false))
        #expect(try scope(["reset", "--all"]) == Reset.Expected(.all, false))
        // A bare reset is --all, as it was before the scopes.
        #expect(try scope(["reset", "--yes"]) == Reset.Expected(.all, true))
    }

    @Test func transactionsDelete() throws {
        #expect(try parsed(["transactions", "delete", "7"], as: Transactions.self).action == .delete(id: 7))
    }

    @Test(arguments: ["+1", "01", "0", "-1", "1e3", " 1"])
    func transactionIdentifiersAreDigitsWithoutSignOrLeadingZero(text: String) {
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["finish", text]) }
    }

    @Test(arguments: [
        (["buy"], "missing product identifier"),
        (["buy", "a", "b"], "unexpected argument 'b'"),
        (["buy", "a", "--quantity", "11"], "--quantity 11: expected a whole number from 1 to 10"),
        (["buy", "a", "--quantity", "0"], "--quantity 0"),
        (["buy", "a", "--quantity"], "option '--quantity' needs a value"),
        (["status", "--quantity", "2"], "'--quantity' is not an option of 'status'"),
        (["list", "--local"], "'--local' is not an option of 'list-products'"),
        (["reset", "--local", "--all"], "--local and --all go separately"),
        (["transactions", "delete"], "missing transaction identifier: iapsim transactions delete <transaction-id>"),
        (["transactions", "delete", "x"], "'x' is not a transaction identifier"),
        (["transactions", "delete", "1", "2"], "unexpected argument '2'"),
        (["transactions", "delete", "1", "--product", "a"], "--product does not go with 'iapsim transactions delete'"),
        (["transactions", "remove"], "unknown transactions action 'remove'; use delete"),
        (["restre"], "unknown command 'restre'; did you mean 'restore'?"),
        (["list", "--jsn"], "unknown option '--jsn'; did you mean '--json'?"),
        (["list", "--json=yes"], "option '--json' takes no value"),
        (["list", "--locale="], "needs a non-empty value"),
        (["list", "-x"], "unknown option '-x'"),
        ([], "missing command"),
    ])
    func badCommandLinesSayWhatIsWrong(arguments: [String], message: String) throws {
        let error = try #require(throws: UsageError.self) { try ArgumentParser.parse(arguments) }
        #expect(error.message.contains(message), "\(error.message)")
        #expect(!error.line.contains("\n"))
    }
}

@Suite struct HelpTextTests {
    @Test func everyCommandHasAPageThatListsItsOptions() throws {
        for spec in Registry.visible {
            let page = HelpText.page(for: .command(spec))
            #expect(page.hasPrefix("OVERVIEW: "))
            #expect(page.contains("USAGE: iapsim \(spec.name)"))
            #expect(page.contains("EXAMPLES:"))
            for option in spec.acceptedOptions {
                #expect(page.contains(option.synopsis), "\(spec.name) lacks \(option.synopsis)")
            }
        }
    }

    @Test func overviewNamesEveryCommandAndTopic() throws {
        let page = HelpText.page(for: nil)
        for spec in Registry.visible { #expect(page.contains(spec.name)) }
        #expect(page.contains("exit-codes"))
        #expect(page.contains("environment"))
    }

    @Test func exitCodesListsEveryCode() throws {
        let page = HelpText.page(for: .exitCodes)
        for code in ExitCode.allCases { #expect(page.contains("  \(code.rawValue) ")) }
    }

    @Test func unknownTopicSuggests() {
        #expect(throws: UsageError("no help topic 'exit-code'; did you mean 'exit-codes'?", command: "help")) {
            try ArgumentParser.parse(["help", "exit-code"])
        }
    }
}

/// The command `arguments` parse to, as a `T`; fails the test when they parse to another.
func parsed<T: CLICommand>(_ arguments: [String], as type: T.Type) throws -> T {
    try #require(try ArgumentParser.parse(arguments).command as? T)
}

extension Reset {
    /// A reset's scope and whether it asks, for comparing.
    struct Expected: Equatable {
        var scope: Reset.Scope
        var assumeYes: Bool
        init(_ scope: Reset.Scope, _ assumeYes: Bool) {
            self.scope = scope
            self.assumeYes = assumeYes
        }
    }
}
