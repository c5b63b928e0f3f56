import IAPSimKit

/// Options every command takes, and the signing options of the commands that list them
/// (`--certs`, `--environment`), which the command context reads.
struct GlobalOptions: Equatable, Sendable {
    var catalogDirectory: String?
    var storeKitFile: String?
    var productIDsFile: String?
    var stateDirectory: String?
    /// `--account NAME`: the customer the command acts for (else `IAPSIM_ACCOUNT`, else `default`).
    var account: String?
    var locale: String?
    var storefront: String?
    /// `--certs DIR`: the test certificates to sign with.
    var certsDirectory: String?
    /// `--environment`: signed data's environment, over the `environment` setting.
    var environment: AppStoreEnvironment?
    var json = false
    var quiet = false
    var noColor = false

    /// The options every command takes.
    static let specs: [OptionSpec] = [
        .value(
            "catalog", "DIR", help: "Catalog folder (Products.storekit, IAPProductIDs.plist). Env: IAPSIM_CATALOG.",
            completes: .directory),
        .value("storekit", "FILE", help: "The store's products: an Xcode .storekit file.", completes: .file),
        .value(
            "product-ids", "FILE",
            help: "The app's identifiers: a plist (an array, or a dictionary keyed by identifier).", completes: .file),
        .value("state-dir", "DIR", help: "Where purchases.json lives. Env: IAPSIM_STATE_DIR.", completes: .directory),
        .value("account", "NAME", help: "The customer to act for (iapsim accounts). Env: IAPSIM_ACCOUNT."),
        .value(
            "locale", "ID", help: "Price and text locale, e.g. de_DE. Env: IAPSIM_LOCALE.",
            values: SettingKey.locale.suggestedValues),
        .value(
            "storefront", "CODE", help: "The buyer's storefront, e.g. JPN (ISO 3166-1 alpha-3).",
            values: SettingKey.storefront.suggestedValues),
        .flag("json", help: "Print the result as JSON on stdout."),
        .flag("quiet", short: "q", help: "Print nothing but errors; the exit status tells."),
        .flag("no-color", help: "No colour or symbols (also when NO_COLOR is set)."),
        .flag("help", short: "h", help: "Show help for iapsim or the command."),
        .flag("version", help: "Show the version."),
    ]

    /// The options of `words`, checked.
    init(_ words: ParsedWords) throws(UsageError) {
        catalogDirectory = words.value("catalog")
        storeKitFile = words.value("storekit")
        productIDsFile = words.value("product-ids")
        stateDirectory = words.value("state-dir")
        account = words.value("account")
        if let account, !AccountName.isValid(account) {
            throw words.error("--account \(account): not a customer name; use \(AccountName.rule)")
        }
        locale = words.value("locale")
        storefront = words.value("storefront")
        certsDirectory = words.value("certs")
        json = words.flag("json")
        quiet = words.flag("quiet")
        noColor = words.flag("no-color")
        if let text = words.value("environment") {
            guard let environment = AppStoreEnvironment.named(text) else {
                throw words.error("--environment \(text): expected Sandbox, Production, Xcode or LocalTesting")
            }
            self.environment = environment
        }
        if words.flag("jws"), !json {
            throw words.error("--jws goes with --json: it adds jwsRepresentation to the JSON")
        }
    }

    init() {}
}
