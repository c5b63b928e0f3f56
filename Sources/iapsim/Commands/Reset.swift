import Foundation
import IAPSimKit

struct Reset: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "reset", abstract: "Reset the app's record, the transactions, the settings, or everything.",
        synopsis: "[--local | --transactions | --settings | --all] [--yes]",
        discussion: """
            --local forgets the app's record, as deleting and reinstalling the app does; the
            account keeps its history, so 'iapsim restore' has work to do.
            --transactions is SKTestSession.clearTransactions(): every transaction, pending
            request, subscription and notification of the customer (--account) goes, with the
            app's record; the settings and the clock stay, and identifiers go on from where
            they were. The notification outbox is the app's: it is cleared only when the store
            has no other customer.
            --settings is SKTestSession.resetToDefaultState(): the settings go back to the
            catalog's and iapsim's defaults; the transactions stay.
            --all, and a bare 'reset' as before these options, erases the whole store: every
            customer's history, the settings and the clock.
            --transactions and --all ask first on a terminal unless --yes.
            """,
        arguments: [],
        options: [
            .yes,
            OptionSpec(name: "local", help: "Forget only the app's record (a reinstall); keep the account."),
            OptionSpec(
                name: "transactions",
                help: "Delete every transaction (clearTransactions); keep the settings and the clock."),
            OptionSpec(
                name: "settings", help: "Settings back to their defaults (resetToDefaultState); keep the transactions."),
            OptionSpec(name: "all", help: "Erase everything: transactions, settings, clock (what a bare reset does)."),
        ],
        examples: [
            "iapsim reset --local", "iapsim reset --transactions --yes", "iapsim reset --settings",
            "iapsim reset --all --yes",
        ])

    let scope: Scope
    let assumeYes: Bool

    /// What `iapsim reset` resets.
    enum Scope: String, Equatable, CaseIterable {
        /// `--local`: the app's record, as a reinstall forgets it.
        case local
        /// `--transactions`: `SKTestSession.clearTransactions()`; the session's settings and clock stay.
        case transactions
        /// `--settings`: `SKTestSession.resetToDefaultState()`; the transactions stay.
        case settings
        /// `--all`, and a bare `reset`: everything, the purchases file erased.
        case all
    }

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
        let scopes = Scope.allCases.filter { words.flag($0.rawValue) }
        guard scopes.count <= 1 else {
            throw words.error(
                scopes.map { "--" + $0.rawValue }.joined(separator: " and ")
                    + " go separately: give one of --local, --transactions, --settings or --all")
        }
        scope = scopes.first ?? .all
        assumeYes = words.flag("yes")
    }

    func run(in context: CommandContext) throws -> Report {
        let session = try context.session()
        let path = session.store.location.statePath
        switch scope {
        case .local:
            try session.resetApp()
            return Report(
                json: .object([("reset", .string("local")), ("stateFile", .string(path))]),
                lines: [
                    "Forgot the app's record; the account keeps its purchases. Run 'iapsim restore' to get them back."
                ])
        case .settings:
            // The catalog's settings block holds the defaults the settings go back to.
            let (_, withCatalog) = try context.catalogAndSession()
            _ = try withCatalog.resetSettings()
            return Report(
                json: .object([("reset", .string("settings")), ("stateFile", .string(path))]),
                lines: ["Settings are back to their defaults ('iapsim settings' shows them); the transactions stay."])
        case .transactions:
            guard
                context.confirm(
                    "Delete every transaction in \(path)? The settings and the clock stay.", assumeYes: assumeYes)
            else {
                return Report(status: .cancelled, notes: ["Cancelled: nothing was deleted."])
            }
            let removed = session.store.exists ? try session.clearTransactions() : []
            return Report(
                json: .object([
                    ("reset", .string("transactions")), ("stateFile", .string(path)),
                    ("removed", .array(removed.map(JSON.string))),
                ]),
                lines: [
                    "Deleted every transaction, request and notification; the settings and the clock stay "
                        + "(clearTransactions)."
                ])
        case .all:
            let question =
                session.store.exists && (try? session.store.read()) == nil
                ? "\(path) cannot be read. Erase it and the account's history?"
                : "Erase all purchases, the account's history, the settings and the clock in \(path)?"
            guard context.confirm(question, assumeYes: assumeYes) else {
                return Report(status: .cancelled, notes: ["Cancelled: nothing was erased."])
            }
            // Works on a state that cannot be parsed too: this is the way out of a corrupt file.
            let removed = try session.resetAll()
            return Report(
                json: .object([
                    ("reset", .string("all")), ("stateFile", .string(path)),
                    ("removed", .array(removed.map(JSON.string))),
                ]),
                lines: removed.isEmpty
                    ? ["Nothing to erase in \(session.store.location.directory)."] : removed.map { "Removed \($0)" })
        }
    }
}
