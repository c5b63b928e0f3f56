import IAPSimKit

/// Every help page. `iapsim help <command>` and `iapsim <command> --help` print the same page;
/// option lines come from `OptionSpec`, the table the parser reads.
enum HelpText {
    static let version = "0.1.0"

    static func page(for topic: String?) throws(UsageError) -> String {
        guard let topic else { return overview }
        if let name = CommandName(word: topic) { return command(name) }
        switch topic {
        case "exit-codes": return exitCodes
        case "environment": return environment
        default:
            let topics = CommandName.allCases.map(\.rawValue) + ["exit-codes", "environment"]
            let hint = Suggestion.nearest(to: topic, among: topics).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError("no help topic '\(topic)'\(hint)", command: .help)
        }
    }

    static var overview: String {
        """
        OVERVIEW: An App Store storefront simulator: run the in-app purchase flow from a shell.

        USAGE: iapsim <command> [options]

        COMMANDS:
        \(CommandName.allCases.map { "  " + TerminalText.padded(label($0), to: 22) + abstract($0) }.joined(separator: "\n"))

        OPTIONS:
        \(optionLines(OptionSpec.all.filter { $0.commands == nil }))

        HELP TOPICS:
          iapsim help <command>   One command, with examples.
          iapsim help exit-codes  What each exit status means.
          iapsim help environment The variables iapsim reads.

        EXAMPLES:
          iapsim list
          iapsim buy Demo.TechoverInAppPurchase.co.Apple.Book --yes
          iapsim reset --local && iapsim restore
          iapsim status --json
        """
    }

    private static func label(_ name: CommandName) -> String {
        name.aliases.isEmpty ? name.rawValue : "\(name.rawValue) (\(name.aliases.joined(separator: ", ")))"
    }

    static func abstract(_ name: CommandName) -> String {
        switch name {
        case .listProducts: "List the app's products with localized prices."
        case .buy: "Buy a product: purchased, cancelled, or not available."
        case .restore: "Re-deliver what the account owns (restoreCompletedTransactions)."
        case .status: "Show what is owned: products, consumables, subscriptions."
        case .reset: "Forget the app's record (--local) or erase everything."
        case .help: "Show help for a command or topic."
        }
    }

    static func command(_ name: CommandName) -> String {
        let (usage, discussion, examples) = details(name)
        return """
            OVERVIEW: \(abstract(name))

            \(discussion)

            USAGE: \(usage)

            OPTIONS:
            \(optionLines(OptionSpec.accepted(by: name)))

            EXAMPLES:
            \(examples.map { "  " + $0 }.joined(separator: "\n"))
            """
    }

    private static func details(_ name: CommandName) -> (String, String, [String]) {
        switch name {
        case .listProducts:
            return (
                "iapsim list-products [options]   (alias: list)",
                """
                What an app's SKProductsRequest returns: each identifier in IAPProductIDs.plist that
                the store has, in the plist's order, with its type, title, price in the storefront's
                currency formatted for the locale, and whether the app owns it. Identifiers the
                store lacks are reported on stderr as invalidProductIdentifiers; the rest still list.
                """,
                ["iapsim list", "iapsim list --locale de_DE", "iapsim list --json | jq '.products[].id'"]
            )
        case .buy:
            return (
                "iapsim buy <product-id> [--quantity N] [--yes] [options]",
                """
                Buys a product. A consumable adds N to its balance; a non-consumable becomes owned,
                and buying it again is a free re-download; an auto-renewable subscription is active
                for one period (or its introductory offer); a non-renewing one is owned.
                On a terminal it first asks "Buy “Title” for $0.99? [y/N]"; no is a cancel (exit 2).
                With --yes, or when stdin is not a terminal, it does not ask.
                An identifier the store lacks exits 5.
                """,
                [
                    "iapsim buy Demo.TechoverInAppPurchase.co.Apple.Book",
                    "iapsim buy com.example.app.coins100 --quantity 3 --yes",
                    "iapsim buy com.example.app.pro.monthly --json",
                ]
            )
        case .restore:
            return (
                "iapsim restore [options]",
                """
                Re-delivers the account's restorable purchases into the app's record, as
                restoreCompletedTransactions and AppStore.sync() do: non-consumables and active
                auto-renewable subscriptions. Consumables and non-renewing subscriptions are not
                restored (Apple leaves them to the app). Prints "Restored N purchases." or
                "No purchases to restore."; exits 0 either way.
                """,
                ["iapsim reset --local && iapsim restore", "iapsim restore --json"]
            )
        case .status:
            return (
                "iapsim status [options]",
                """
                Shows the app's purchased product identifiers and consumable balances, and each
                auto-renewable subscription's state (subscribed, expired, revoked) with its expiry.
                """,
                ["iapsim status", "iapsim status --json | jq '.consumables'"]
            )
        case .reset:
            return (
                "iapsim reset [--local] [--yes] [options]",
                """
                With --local, forgets the app's record, as deleting and reinstalling the app does;
                the account keeps its history, so 'iapsim restore' has work to do. Without it,
                erases the purchases file entirely (asks first on a terminal unless --yes).
                """,
                ["iapsim reset --local", "iapsim reset --yes"]
            )
        case .help:
            return (
                "iapsim help [<command> | exit-codes | environment]",
                "Shows help. 'iapsim help <command>' and 'iapsim <command> --help' agree.",
                ["iapsim help buy", "iapsim help exit-codes"]
            )
        }
    }

    private static func optionLines(_ specs: [OptionSpec]) -> String {
        specs.map { "  " + TerminalText.padded($0.synopsis, to: 22) + " " + $0.help }.joined(separator: "\n")
    }

    static var exitCodes: String {
        "EXIT CODES:\n"
            + ExitCode.allCases.map { "  " + TerminalText.padded(String($0.rawValue), to: 4) + $0.meaning }
            .joined(separator: "\n")
    }

    static var environment: String {
        """
        ENVIRONMENT:
          IAPSIM_CATALOG       Catalog folder, when --catalog is not given.
          IAPSIM_STATE_DIR     State folder, when --state-dir is not given.
          IAPSIM_LOCALE        Price and text locale, when --locale is not given (de_DE,
                               de-DE, de_DE.UTF-8 and de_DE@euro are all accepted).
          IAPSIM_LOCK_TIMEOUT  Seconds to wait for another iapsim's lock (default \(Int(StateLocation.defaultLockTimeout))).
          XDG_CONFIG_HOME      On Linux the state folder is $XDG_CONFIG_HOME/iapsim when it
                               is an absolute path,
          HOME                 else $HOME/.config/iapsim (macOS: ~/Library/Application
                               Support/iapsim).
        An empty variable counts as unset. LANG and LC_ALL are not read: prices follow the
        catalog's storefront locale unless --locale or IAPSIM_LOCALE says otherwise.
        """
    }
}
