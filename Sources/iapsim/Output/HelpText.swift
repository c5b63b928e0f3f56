import IAPSimKit

/// Every help page, generated from the commands' specs (`Registry`). `iapsim help <command>`
/// and `iapsim <command> --help` print the same page.
enum HelpText {
    static var version: String { Version.number }

    static func page(for topic: HelpTopic?) -> String {
        switch topic {
        case nil: overview
        case .command(let spec)?: command(spec)
        case .exitCodes?: exitCodes
        case .environment?: environment
        case .errors?: errors
        case .settingKeys?: settingKeys
        case .manpage?: ManPage.roff
        case .reference?: ReferencePage.markdown
        case .transactionSchema?:
            String(
                decoding: IAPSimKit.Transaction.storeKitSchema(adding: Transactions.rowSchemaMembers).bytes(),
                as: UTF8.self)
                + "\n"
        }
    }

    static var overview: String {
        """
        OVERVIEW: An App Store storefront simulator: run the in-app purchase flow from a shell.

        USAGE: iapsim <command> [options]

        COMMANDS:
        \(Registry.visible.map { "  " + TerminalText.padded(label($0), to: 26) + $0.abstract }.joined(separator: "\n"))

        OPTIONS:
        \(optionLines(GlobalOptions.specs))

        HELP TOPICS:
          iapsim help <command>   One command, with examples.
          iapsim help exit-codes  What each exit status means.
          iapsim help environment The variables iapsim reads.
          iapsim help errors      The StoreKit errors a purchase can be made to fail with.
          iapsim help settings-keys  The session settings and their values.

        EXAMPLES:
          iapsim list
          iapsim buy Demo.TechoverInAppPurchase.co.Apple.Book --yes
          iapsim reset --local && iapsim restore
          iapsim status --json
          iapsim buy com.example.app.book --outcome ask-to-buy; iapsim approve "$(iapsim transactions --state pending --json | jq '.pending[0].id')"
          iapsim buy com.example.app.pro.monthly --yes && iapsim clock advance P1Y
        """
    }

    private static func label(_ spec: CommandSpec) -> String {
        spec.aliases.isEmpty ? spec.name : "\(spec.name) (\(spec.aliases.joined(separator: ", ")))"
    }

    static func command(_ help: CommandSpec) -> String {
        """
        OVERVIEW: \(help.abstract)

        \(help.discussion)

        USAGE: \(help.usage)

        OPTIONS:
        \(optionLines(help.acceptedOptions))

        EXAMPLES:
        \(help.examples.map { "  " + $0 }.joined(separator: "\n"))
        """
    }

    private static func optionLines(_ specs: [OptionSpec]) -> String {
        specs.map { "  " + TerminalText.padded($0.synopsis, to: 22) + " " + $0.help }.joined(separator: "\n")
    }

    static var exitCodes: String {
        "EXIT CODES:\n"
            + ExitCode.allCases.map { "  " + TerminalText.padded(String($0.rawValue), to: 4) + $0.meaning }
            .joined(separator: "\n")
    }

    static var errors: String {
        """
        ERRORS (for --outcome fail=NAME and the error.* settings):
        A bare name is looked up in SKError, then StoreKitError, then Product.PurchaseError,
        VerificationResult.VerificationError and Transaction.RefundRequestError, among those the
        API takes; qualify it (StoreKitError.unknown) or give an SKError code number (0).
        \(SimulatedError.Domain.allCases.map { domain in
            "  \(domain.rawValue):\n" + SimulatedError.all.filter { $0.domain == domain }.map {
                "    " + TerminalText.padded($0.name, to: 36) + ($0.code.map { String($0) } ?? "")
            }.joined(separator: "\n")
        }.joined(separator: "\n"))
        Which API takes which (Apple, "SKTestFailures"):
        \(StoreKitTestAPI.allCases.compactMap { api in
            api.settingKey.map { "  " + TerminalText.padded($0.rawValue, to: 26) + api.allowedErrors }
        }.joined(separator: "\n"))
        A .storekit file's Manage Subscriptions error is ignored, with a warning: iapsim has no
        such sheet.
        Exit status: paymentCancelled/userCancelled 2, paymentNotAllowed/purchaseNotAllowed 4,
        storeProductNotAvailable/productUnavailable/notAvailableInStorefront 5, others 1.
        """
    }

    /// Each key in a column as wide as the longest key and two spaces, so no description runs
    /// into its key.
    static var settingKeys: String {
        let width = (SettingKey.allCases.map(\.rawValue.count).max() ?? 0) + 2
        return "SETTINGS (iapsim settings set KEY VALUE), each the app's or each customer's:\n"
            + SettingKey.allCases.map {
                "  " + TerminalText.padded($0.rawValue, to: width)
                    + TerminalText.padded($0.isAppWide ? "app" : "customer", to: 10)
                    + $0.summary
            }
            .joined(separator: "\n")
            + "\nA customer's setting applies to the customer --account names (IAPSIM_ACCOUNT, else default);"
            + "\nthe app's apply to every customer."
            + "\nDefaults come from the .storekit file's settings block where it has one."
    }

    static var environment: String {
        let width = (EnvironmentVariable.allCases.map(\.name.count).max() ?? 0) + 1
        return "ENVIRONMENT:\n"
            + EnvironmentVariable.allCases.map { "  " + TerminalText.padded($0.name, to: width) + " " + $0.summary }
            .joined(separator: "\n")
                + """

                An empty variable counts as unset. LANG and LC_ALL are not read: prices follow the
                catalog's storefront locale unless --locale or IAPSIM_LOCALE says otherwise.
                """
            + "\nAlso read, as no setting: \(EnvironmentVariable.libfaketimeMarkers.joined(separator: ", ")), by an"
            + "\niapsim a program under 'clock exec' starts, which then runs itself without libfaketime."
    }
}
