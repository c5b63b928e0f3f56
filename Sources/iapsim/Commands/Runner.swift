import Foundation
import IAPSimKit

/// Runs one parsed command against the library, writing through the console.
struct Runner {
    var options: GlobalOptions
    var context: Context
    var console: Console

    func run(_ command: Command) throws -> ExitCode {
        switch command {
        case .help(let topic):
            console.out(try HelpText.page(for: topic))
            return .success
        case .version:
            if options.json {
                emit(.object([("version", .string(HelpText.version))]))
            } else {
                console.out("iapsim \(HelpText.version)")
            }
            return .success
        case .listProducts:
            return try listProducts()
        case .check:
            return try check()
        case .buy(let productID, let quantity, let assumeYes, let outcome):
            return try buy(productID, quantity: quantity, assumeYes: assumeYes, outcome: outcome)
        case .restore:
            return try restore()
        case .status:
            return try status()
        case .transactions(let productID, let state):
            return try transactions(productID: productID, state: state)
        case .approve(let id), .decline(let id), .resolve(let id), .finish(let id):
            return try lifecycle(command, id: id)
        case .refund(let id, let reason):
            return try refund(id, reason: reason)
        case .cancelSubscription(let productID, let undo):
            return try cancelSubscription(productID, undo: undo)
        case .expire(let productID):
            return try expire(productID)
        case .renew(let productID):
            return try renew(productID)
        case .clock(let action):
            return try clock(action)
        case .settings(let action):
            return try settings(action)
        case .completion(let shell):
            if shell == "products" {
                // For the completion scripts: identifiers one per line, silence on any error.
                guard let catalog = try? loadCatalogQuietly() else { return .success }
                catalog.products.forEach { console.out($0.id) }
                return .success
            }
            console.writeOut(Completion.script(for: shell)!)
            return .success
        case .reset(let localOnly, let assumeYes):
            return try reset(localOnly: localOnly, assumeYes: assumeYes)
        }
    }

    /// The locale asked for by `--locale` or `IAPSIM_LOCALE`, canonical; nil when neither is set
    /// (then the session's `locale` setting, then the catalog's, apply).
    /// - Throws: `UsageError` naming the flag or variable for a locale Foundation does not know.
    func requestedLocale() throws(UsageError) -> String? {
        let (value, origin): (String?, String) =
            options.locale != nil
            ? (options.locale, "--locale") : (context.variable("IAPSIM_LOCALE"), "IAPSIM_LOCALE")
        guard let value else { return nil }
        guard let canonical = LocaleName.canonical(value) else {
            throw UsageError("\(origin) \(value): unknown locale; use an identifier such as en_US or de_DE")
        }
        return canonical
    }

    /// The catalog in its own storefront, without reading the state.
    func loadCatalogQuietly() throws -> Catalog {
        try Catalog.load(
            CatalogSource.resolve(
                catalogDirectory: options.catalogDirectory, storeKitFile: options.storeKitFile,
                productIDsFile: options.productIDsFile, context: context))
    }

    func stateStore() throws -> StateStore {
        StateStore(location: try StateLocation.resolve(stateDirectory: options.stateDirectory, context: context))
    }

    /// The session over the state, with no catalog defaults (for `reset`).
    func session() throws -> StoreSession {
        StoreSession(store: try stateStore(), now: context.now)
    }

    /// The catalog, priced in the buyer's storefront, and the session over the state with the
    /// catalog's settings as its defaults: what the commands that act as the app need.
    ///
    /// The storefront is `--storefront`, else `settings set storefront`, else the `.storekit`
    /// file's own.
    func catalogAndSession() throws -> (Catalog, StoreSession) {
        let (catalog, session, _) = try catalogSessionAndSettings()
        return (catalog, session)
    }

    /// The same, with the settings in force as the state read on the way had them: one read
    /// of the state for all three.
    func catalogSessionAndSettings() throws -> (Catalog, StoreSession, SessionSettings) {
        let store = try stateStore()
        let overrides = store.exists ? try store.read().simulation.settings : [:]
        var storefront: Storefront?
        if let code = options.storefront {
            guard let named = Storefront.named(code) else {
                throw UsageError(
                    "--storefront \(code): unknown storefront; use an App Store code such as USA, GBR or JPN")
            }
            storefront = named
        } else if let code = overrides[SettingKey.storefront.rawValue] {
            storefront = Storefront.named(code)
        }
        let source = try CatalogSource.resolve(
            catalogDirectory: options.catalogDirectory, storeKitFile: options.storeKitFile,
            productIDsFile: options.productIDsFile, context: context)
        let catalog = try Catalog.load(source, storefront: storefront)
        return (
            catalog, StoreSession(store: store, now: context.now, catalogSettings: catalog.store.settings),
            SessionSettings(catalog: catalog.store.settings, overrides: overrides)
        )
    }

    /// The presenter for `catalog` in the locale asked for, else one set with `settings set
    /// locale`, else the catalog's own (its `_locale` in its storefront, else the storefront's).
    func presenter(_ catalog: Catalog, settings: SessionSettings) throws -> ProductPresenter {
        let setting = settings.sources[.locale] == .set ? settings[.locale] : nil
        return ProductPresenter(catalog: catalog, locale: try requestedLocale() ?? setting)
    }

    /// At each launch `Transaction.updates` re-delivers what the app has not finished; say so.
    func noteUnfinished(_ ids: [UInt64]) {
        guard !ids.isEmpty else { return }
        let list = ids.map(String.init).joined(separator: ", ")
        console.notice(
            "Note: Transaction.updates re-delivered \(ids.count) unfinished transaction\(ids.count == 1 ? "" : "s"): \(list)"
                + " (finish with 'iapsim finish ID')")
    }

    /// Asks a yes/no question on a terminal. Without a terminal, or with `--yes`, the answer is yes.
    func confirm(_ question: String, assumeYes: Bool) -> Bool {
        guard !assumeYes, console.inputIsTerminal else { return true }
        console.writeError(question + " [y/N] ")  // asked even with --quiet: a person is there
        guard let answer = console.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return false
        }
        return answer == "y" || answer == "yes"
    }

    /// The width tables must fit: `COLUMNS`, else the terminal's; nil (no limit) for a pipe.
    var width: Int? {
        context.variable("COLUMNS").flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? console.terminalWidth
    }

    func emit(_ json: JSON) {
        console.out(bytes: json.bytes())
    }
}
