import Foundation
import IAPSimHTTP
import IAPSimKit

/// What a command runs in: the options of its invocation, the live `Context` (environment,
/// clock, current folder), the console, and the events the library reports while it runs.
/// Commands ask it for the catalog, the session and the signer; every StoreKit decision is
/// the library's.
struct CommandContext {
    var options: GlobalOptions
    var base: Context
    var console: Console
    /// What the library told of while the command ran (`StoreEvent`): notes after its output.
    let events = EventLog()
    /// The state folder's remembered price texts, once a presenter asked; saved after the command.
    private let priceTexts = PriceTextsHolder()

    init(options: GlobalOptions, context: Context, console: Console) {
        self.options = options
        self.base = context
        self.console = console
    }

    /// Runs `command` and adds the notes and warnings of what happened meanwhile, and of the
    /// customer it acted for: one it added, or one the store does not have.
    func run(_ command: any CLICommand) throws -> Report {
        for warning in command.warnings { console.notice(warning) }
        let customer = try? stateStore()
        let existed = customer?.accountExists ?? true
        var report: Report
        do {
            report = try command.run(in: self)
            priceTexts.texts?.save()
        } catch SimulationError.unknownTransaction(let id) {
            throw try Self.otherCustomersTransaction(id, customer) ?? SimulationError.unknownTransaction(id: id)
        }
        report.notes = events.notes + report.notes
        report.warnings = events.warnings + report.warnings
        if let customer, !existed, !(command is Accounts) {
            if customer.accountExists {
                report.notes.append("Added customer \(customer.location.account) ('iapsim accounts' lists them).")
            } else {
                report.warnings.append(Self.unknownCustomerWarning(customer))
            }
        }
        return report
    }

    /// A read for a customer the store does not have answers empty: say so, and which name was meant.
    private static func unknownCustomerWarning(_ store: StateStore) -> String {
        let name = store.location.account
        let known = [StateLocation.defaultAccount] + ((try? store.accountNames()) ?? [])
        let hint = Suggestion.nearest(to: name, among: known).map { "; did you mean '\($0)'?" } ?? ""
        return "Warning: the store has no customer '\(name)' (nothing to show)\(hint) 'iapsim accounts' lists them"
    }

    /// An identifier names its customer: one of another customer's is refused with the
    /// owner's name, not as unknown.
    private static func otherCustomersTransaction(_ id: UInt64, _ store: StateStore?) throws -> UsageError? {
        guard let store, let owner = try store.account(ofTransaction: id), owner != store.location.account else {
            return nil
        }
        return UsageError(
            "transaction \(id) is customer \(owner)'s, not \(store.location.account)'s: add --account \(owner)")
    }

    /// The simulated clock's reading source: the real clock, or the tests' fixed one.
    var now: @Sendable () -> Date { base.now }

    /// `path` made absolute against the current folder.
    func absolutePath(_ path: String) -> String { base.absolutePath(path) }

    /// `--port-file`: writes `server`'s port to `file`, for a script that started it on port 0;
    /// stops the server when the file cannot be written, which then is the command's error.
    func writePortFile(_ file: String?, of server: HTTPServer) throws {
        guard let file else { return }
        do {
            // Often in a shared /tmp: never through a symlink someone planted there.
            try OutsideFile.write(Array("\(server.port)\n".utf8), to: absolutePath(file))
        } catch {
            server.stop()
            throw error
        }
    }

    /// The locale asked for by `--locale` or `IAPSIM_LOCALE`, canonical; nil when neither is set
    /// (then the session's `locale` setting, then the catalog's, apply).
    /// - Throws: `UsageError` naming the flag or variable for a locale Foundation does not know.
    func requestedLocale() throws(UsageError) -> String? {
        let (value, origin): (String?, String) =
            options.locale != nil
            ? (options.locale, "--locale")
            : (base.value(of: .locale), EnvironmentVariable.locale.name)
        guard let value else { return nil }
        guard let canonical = LocaleName.canonical(value) else {
            throw UsageError("\(origin) \(value): unknown locale; use an identifier such as en_US or de_DE")
        }
        return canonical
    }

    /// Where the catalog comes from: `--catalog`, `--storekit`/`--product-ids`, else the
    /// environment and the usual places.
    func catalogSource() throws -> CatalogSource {
        try CatalogSource.resolve(
            catalogDirectory: options.catalogDirectory, storeKitFile: options.storeKitFile,
            productIDsFile: options.productIDsFile, context: base)
    }

    /// The catalog in its own storefront, without reading the state.
    func loadCatalogQuietly() throws -> Catalog {
        try Catalog.load(catalogSource())
    }

    func stateStore() throws -> StateStore {
        StateStore(
            location: try StateLocation.resolve(
                stateDirectory: options.stateDirectory, account: options.account, context: base))
    }

    /// Where the test certificates live: `--certs`, else `IAPSIM_CERTS_DIR`, else the state
    /// folder's `certs`.
    func certsDirectory() throws -> String {
        if let named = options.certsDirectory ?? base.value(of: .certsDirectory) {
            return base.absolutePath(named)
        }
        return try stateStore().location.directory + "/certs"
    }

    /// The identity to sign with, made on first use, and the environment asked for; a running
    /// `serve` or `listen` picks up a rotated set at its next signing.
    func signer() throws -> StoreSession.Signer {
        let identity = try SigningIdentity.loadOrCreate(
            in: try certsDirectory(), lockTimeout: try stateStore().location.lockTimeout)
        return StoreSession.Signer(identity: identity, environment: options.environment, reloading: true)
    }

    /// The session over the state, with no catalog defaults (for `reset`).
    func session() throws -> StoreSession {
        StoreSession(store: try stateStore(), now: base.now, events: events.record)
    }

    /// The catalog, priced in the buyer's storefront, and the session over the state with the
    /// catalog's settings as its defaults: what the commands that act as the app need.
    ///
    /// The storefront is `--storefront`, else `settings set storefront`, else the `.storekit`
    /// file's own.
    func catalogAndSession() throws -> (Catalog, StoreSession) {
        _ = try requestedLocale()  // a bad --locale is a usage error before anything else
        let storefront = try requestedStorefront()
        let (catalog, session) = try StoreSession.open(
            catalogSource(), store: try stateStore(), storefront: storefront, now: base.now, events: events.record)
        for error in catalog.store.settings.ignoredErrors {
            events.warn("Warning: \(catalog.source.storeKitPath): \(error)")
        }
        if catalog.source.origin == .installedDemo {
            events.warn(Self.demoCatalogNote(catalog.source.storeKitPath))
        }
        return (catalog, session)
    }

    /// Said once per command when no catalog was found and the demo one is in use: a
    /// developer's own `.storekit` belongs in the current folder, `./catalog` or `--catalog`.
    static func demoCatalogNote(_ path: String) -> String {
        "Note: using the demo catalog installed with iapsim (\(path)); run iapsim in the folder of your "
            + ".storekit file, or pass --catalog DIR or --storekit FILE"
    }

    /// The storefront `--storefront` names, nil without it.
    /// - Throws: `UsageError` for a code that names no storefront.
    func requestedStorefront() throws(UsageError) -> Storefront? {
        guard let code = options.storefront else { return nil }
        guard let named = Storefront.named(code) else {
            throw UsageError("--storefront \(code): unknown storefront; use an App Store code such as USA, GBR or JPN")
        }
        return named
    }

    /// The presenter for `catalog` in the locale asked for, else one set with `settings set
    /// locale`, else the catalog's own (its `_locale` in its storefront, else the storefront's).
    func presenter(_ catalog: Catalog, settings: SessionSettings) throws -> ProductPresenter {
        ProductPresenter(
            catalog: catalog, locale: try requestedLocale() ?? settings.localeOverride, texts: rememberedPriceTexts())
    }

    /// The price texts remembered in the state folder (`PriceTexts`), for this build of iapsim;
    /// nil where the folder cannot be told.
    private func rememberedPriceTexts() -> PriceTexts? {
        if let texts = priceTexts.texts { return texts }
        // A folder not made yet gets no file: the cache never creates the state folder.
        guard let directory = try? stateStore().location.directory else { return nil }
        let texts = PriceTexts(path: directory + "/" + PriceTexts.fileName, build: Context.buildIdentity)
        priceTexts.texts = texts
        return texts
    }

    /// The one `PriceTexts` of a command, shared by the copies of its context.
    private final class PriceTextsHolder: @unchecked Sendable {
        var texts: PriceTexts?
    }

    /// At each launch `Transaction.updates` re-delivers what the app has not finished; say so.
    static func unfinishedNote(_ ids: [UInt64]) -> [String] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map(String.init).joined(separator: ", ")
        return [
            "Note: Transaction.updates re-delivered \(ids.count) unfinished transaction\(ids.count == 1 ? "" : "s"): \(list)"
                + " (finish with 'iapsim finish ID')"
        ]
    }

    /// Asks a yes/no question on a terminal. Without a terminal, or with `--yes`, the answer is yes.
    func confirm(_ question: String, assumeYes: Bool) -> Bool {
        guard !assumeYes, console.inputIsTerminal else { return true }
        guard let answer = console.ask(question)?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return false
        }
        return answer == "y" || answer == "yes"
    }

    /// The width tables must fit: `COLUMNS`, else the terminal's; nil (no limit) for a pipe.
    var width: Int? {
        base.value(of: .columns).flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
            ?? console.terminalWidth
    }
}
