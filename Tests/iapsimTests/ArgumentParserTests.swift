import Testing

@testable import iapsim

@Suite struct ArgumentParserTests {
    @Test func optionsGoBeforeOrAfterTheCommand() throws {
        let before = try ArgumentParser.parse(["--json", "--state-dir", "/s", "status"])
        let after = try ArgumentParser.parse(["status", "--state-dir=/s", "--json"])
        #expect(before == after)
        #expect(before.options.stateDirectory == "/s")
        #expect(before.options.json)
        #expect(before.command == .status(withJWS: false))
    }

    @Test func buyTakesAnIdentifierQuantityAndYes() throws {
        let invocation = try ArgumentParser.parse(["buy", "com.x.coins", "--quantity", "3", "-y"])
        #expect(invocation.command == .buy(productID: "com.x.coins", quantity: 3, assumeYes: true, outcome: nil))
    }

    @Test func listIsAnAliasOfListProducts() throws {
        #expect(try ArgumentParser.parse(["list"]).command == .listProducts)
        #expect(try ArgumentParser.parse(["list-products"]).command == .listProducts)
    }

    @Test func doubleDashEndsOptions() throws {
        let invocation = try ArgumentParser.parse(["buy", "--yes", "--", "--weird-id"])
        #expect(invocation.command == .buy(productID: "--weird-id", quantity: 1, assumeYes: true, outcome: nil))
    }

    @Test func helpAndVersion() throws {
        #expect(try ArgumentParser.parse(["--help"]).command == .help(nil))
        #expect(try ArgumentParser.parse(["buy", "--help"]).command == .help(.command(.buy)))
        #expect(try ArgumentParser.parse(["help", "restore"]).command == .help(.command(.restore)))
        #expect(try ArgumentParser.parse(["--version"]).command == .version)
    }

    @Test func resetScopes() throws {
        #expect(try ArgumentParser.parse(["reset", "--local"]).command == .reset(.local, assumeYes: false))
        let transactions = try ArgumentParser.parse(["reset", "--transactions", "-y"]).command
        #expect(transactions == .reset(.transactions, assumeYes: true))
        #expect(try ArgumentParser.parse(["reset", "--settings"]).command == .reset(.settings, assumeYes: false))
        #expect(try ArgumentParser.parse(["reset", "--all"]).command == .reset(.all, assumeYes: false))
        // A bare reset is --all, as it was before the scopes.
        #expect(try ArgumentParser.parse(["reset", "--yes"]).command == .reset(.all, assumeYes: true))
    }

    @Test func transactionsDelete() throws {
        #expect(try ArgumentParser.parse(["transactions", "delete", "7"]).command == .deleteTransaction(id: 7))
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
        for name in CommandName.allCases {
            let page = HelpText.page(for: .command(name))
            #expect(page.hasPrefix("OVERVIEW: "))
            #expect(page.contains("USAGE: iapsim \(name.rawValue)"))
            #expect(page.contains("EXAMPLES:"))
            for option in OptionSpec.accepted(by: name) {
                #expect(page.contains(option.synopsis), "\(name.rawValue) lacks \(option.synopsis)")
            }
        }
    }

    @Test func overviewNamesEveryCommandAndTopic() throws {
        let page = HelpText.page(for: nil)
        for name in CommandName.allCases { #expect(page.contains(name.rawValue)) }
        #expect(page.contains("exit-codes"))
        #expect(page.contains("environment"))
    }

    @Test func exitCodesListsEveryCode() throws {
        let page = HelpText.page(for: .exitCodes)
        for code in ExitCode.allCases { #expect(page.contains("  \(code.rawValue) ")) }
    }

    @Test func unknownTopicSuggests() {
        #expect(throws: UsageError("no help topic 'exit-code'; did you mean 'exit-codes'?", command: .help)) {
            try ArgumentParser.parse(["help", "exit-code"])
        }
    }
}
