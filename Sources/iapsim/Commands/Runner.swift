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
            console.out("iapsim \(HelpText.version)")
            return .success
        case .listProducts:
            return try listProducts()
        case .buy(let productID, let quantity, let assumeYes):
            return try buy(productID, quantity: quantity, assumeYes: assumeYes)
        case .restore:
            return try restore()
        case .status:
            return try status()
        case .reset(let localOnly, let assumeYes):
            return try reset(localOnly: localOnly, assumeYes: assumeYes)
        }
    }

    /// The locale asked for by `--locale` or `IAPSIM_LOCALE`, canonical; nil when neither is set.
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

    func loadCatalog() throws -> Catalog {
        let source = try CatalogSource.resolve(
            catalogDirectory: options.catalogDirectory, storeKitFile: options.storeKitFile,
            productIDsFile: options.productIDsFile, context: context)
        return try Catalog.load(source)
    }

    func session() throws -> StoreSession {
        let location = try StateLocation.resolve(stateDirectory: options.stateDirectory, context: context)
        return StoreSession(store: StateStore(location: location), now: context.now)
    }

    /// Asks a yes/no question on a terminal. Without a terminal, or with `--yes`, the answer is yes.
    func confirm(_ question: String, assumeYes: Bool) -> Bool {
        guard !assumeYes, console.inputIsTerminal else { return true }
        console.writeError(question + " [y/N] ")
        guard let answer = console.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return false
        }
        return answer == "y" || answer == "yes"
    }

    func emit(_ json: JSON) {
        console.out(json.serialized())
    }
}
