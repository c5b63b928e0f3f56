import Foundation
import IAPSimKit

/// Runs one parsed command against the library and returns its report. Commands ask the
/// library (`StoreSession`, `Catalog`) and lay out what it answers; every StoreKit decision
/// is the library's.
struct Runner {
    var options: GlobalOptions
    var context: Context
    var console: Console
    /// What the library told of while the command ran (`StoreEvent`): notes after its output.
    let events = EventLog()

    func run(_ command: Command) throws -> Report {
        var report = try perform(command)
        report.notes = events.notes + report.notes
        report.warnings = events.warnings + report.warnings
        return report
    }

    private func perform(_ command: Command) throws -> Report {
        switch command {
        case .help(let topic):
            let text = HelpText.page(for: topic)
            return Report(json: .object([("topic", .optional(topic.map(HelpText.name))), ("text", .string(text))]))
                .verbatim(text)
        case .version:
            return Report(json: .object([("version", .string(HelpText.version))]), lines: ["iapsim \(HelpText.version)"])
        case .listProducts:
            return try listProducts()
        case .check:
            return try check()
        case .buy(let productID, let quantity, let assumeYes, let outcome, let offer, let token, let asFamilyMember, let monthly):
            if asFamilyMember { return try buyAsFamilyMember(productID, appAccountToken: token) }
            return try buy(
                productID, quantity: quantity, assumeYes: assumeYes, outcome: outcome, offer: offer,
                appAccountToken: token, monthlyBilling: monthly)
        case .redeemOfferCode(let productID, let codeID, let assumeYes):
            return try buy(productID, quantity: 1, assumeYes: assumeYes, outcome: nil, offer: .code(id: codeID))
        case .offerSignature(let productID, let offerID, let nonce, let timestamp, let token):
            return try offerSignature(productID, offerID: offerID, nonce: nonce, timestamp: timestamp, appAccountToken: token)
        case .restore:
            return try restore()
        case .status(let withJWS):
            return try status(withJWS: withJWS)
        case .transactions(let productID, let filter, let withJWS):
            return try transactions(productID: productID, filter: filter, withJWS: withJWS)
        case .deleteTransaction(let id):
            return try deleteTransaction(id)
        case .jws(let action):
            return try jws(action)
        case .certs(let action):
            return try certs(action)
        case .notifications(let action):
            return try notifications(action)
        case .listen(let request):
            return try listen(request)
        case .trigger(let name, let productID):
            return try trigger(name, productID: productID)
        case .notifyTest:
            return try notifyTest()
        case .serve(let request):
            return try serve(request)
        case .approve(let id):
            return try approve(id)
        case .decline(let id):
            return try decline(id)
        case .resolve(let id):
            return try resolve(id)
        case .finish(let id):
            return try finish(id)
        case .refund(let id, let reason):
            return try refund(id, reason: reason)
        case .declineRefund(let id):
            return try declineRefund(id)
        case .reverseRefund(let id):
            return try reverseRefund(id)
        case .requestRefund(let id, let reason):
            return try requestRefund(id, reason: reason)
        case .buyOutsideApp(let productID, let quantity):
            return try buyOutsideApp(productID, quantity: quantity)
        case .priceIncrease(let action):
            return try priceIncrease(action)
        case .familyRevoke(let id):
            return try familyRevoke(id)
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
            return Report().verbatim(Completion.script(for: shell))
        case .completionProducts:
            // For the completion scripts: identifiers one per line, silence on any error.
            let identifiers = (try? loadCatalogQuietly())?.products.map(\.id) ?? []
            return Report(lines: identifiers)
        case .reset(let scope, let assumeYes):
            return try reset(scope, assumeYes: assumeYes)
        }
    }

    /// The locale asked for by `--locale` or `IAPSIM_LOCALE`, canonical; nil when neither is set
    /// (then the session's `locale` setting, then the catalog's, apply).
    /// - Throws: `UsageError` naming the flag or variable for a locale Foundation does not know.
    func requestedLocale() throws(UsageError) -> String? {
        let (value, origin): (String?, String) =
            options.locale != nil
            ? (options.locale, "--locale")
            : (context.value(of: .locale), EnvironmentVariable.locale.name)
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
            productIDsFile: options.productIDsFile, context: context)
    }

    /// The catalog in its own storefront, without reading the state.
    func loadCatalogQuietly() throws -> Catalog {
        try Catalog.load(catalogSource())
    }

    func stateStore() throws -> StateStore {
        StateStore(location: try StateLocation.resolve(stateDirectory: options.stateDirectory, context: context))
    }

    /// Where the test certificates live: `--certs`, else `IAPSIM_CERTS_DIR`, else the state
    /// folder's `certs`.
    func certsDirectory() throws -> String {
        if let named = options.certsDirectory ?? context.value(of: .certsDirectory) {
            return context.absolutePath(named)
        }
        return try stateStore().location.directory + "/certs"
    }

    /// The identity to sign with, made on first use, and the environment asked for.
    func signer() throws -> StoreSession.Signer {
        let identity = try SigningIdentity.loadOrCreate(
            in: try certsDirectory(), lockTimeout: try stateStore().location.lockTimeout)
        return StoreSession.Signer(identity: identity, environment: options.environment)
    }

    /// The session over the state, with no catalog defaults (for `reset`).
    func session() throws -> StoreSession {
        StoreSession(store: try stateStore(), now: context.now, events: events.record)
    }

    /// The catalog, priced in the buyer's storefront, and the session over the state with the
    /// catalog's settings as its defaults: what the commands that act as the app need.
    ///
    /// The storefront is `--storefront`, else `settings set storefront`, else the `.storekit`
    /// file's own.
    func catalogAndSession() throws -> (Catalog, StoreSession) {
        _ = try requestedLocale()  // a bad --locale is a usage error before anything else
        let store = try stateStore()
        var storefront: Storefront?
        if let code = options.storefront {
            guard let named = Storefront.named(code) else {
                throw UsageError(
                    "--storefront \(code): unknown storefront; use an App Store code such as USA, GBR or JPN")
            }
            storefront = named
        } else if store.exists, let code = try store.read().simulation.settings[.storefront] {
            storefront = Storefront.named(code)
        }
        let catalog = try Catalog.load(catalogSource(), storefront: storefront)
        catalog.store.settings.ignoredErrors.forEach { events.warn("Warning: \(catalog.source.storeKitPath): \($0)") }
        return (
            catalog,
            StoreSession(store: store, now: context.now, catalog: catalog, events: events.record)
        )
    }

    /// The presenter for `catalog` in the locale asked for, else one set with `settings set
    /// locale`, else the catalog's own (its `_locale` in its storefront, else the storefront's).
    func presenter(_ catalog: Catalog, settings: SessionSettings) throws -> ProductPresenter {
        let setting = settings.sources[.locale] == .set ? settings[.locale] : nil
        return ProductPresenter(catalog: catalog, locale: try requestedLocale() ?? setting)
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
        context.value(of: .columns).flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
            ?? console.terminalWidth
    }
}

extension Report {
    /// This report printing `text` exactly as it is (help pages, scripts), without `--json`.
    func verbatim(_ text: String) -> Report {
        var report = self
        report.text = { [.verbatim(text)] }
        return report
    }
}
