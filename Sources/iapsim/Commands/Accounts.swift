import Foundation
import IAPSimKit

struct Accounts: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "accounts", abstract: "List, add or remove the store's customers (--account picks one).",
        synopsis: "[add NAME [--storefront CODE] | remove NAME [--yes]]",
        discussion: """
            One state folder is one app on one App Store with any number of customers. Each has
            its own transactions, app record, pending purchases, storefront, Family Sharing and
            unfinished transactions; the catalog, the clock, the app's settings (environment,
            bundle-id, app-apple-id, time-rate, grace-period, one-time-charge-notifications)
            and the notification outbox are the app's. --account NAME (IAPSIM_ACCOUNT) picks the
            customer any command acts for; without it, 'default'. A command that changes
            something for a customer the store does not have adds it, as a new buyer signing in;
            a command that only looks answers as for a new customer and adds nothing.
            Transaction identifiers are unique across the store: each customer's start after
            its number times a trillion.
            'add NAME' adds a customer (--storefront sets where it buys). 'remove NAME' removes a
            customer's transactions, app record and settings for good, asking first on a
            terminal unless --yes; its notifications stay in the app's outbox, and its
            identifiers are never given again. 'default' cannot be removed: 'iapsim reset
            --transactions' clears its history. A name is 1 to 64 letters, digits, '.', '_' or
            '-', starting with a letter or digit; names are compared without case (Bob and bob
            would share a folder on a case-insensitive file system), and 'remove' takes only a
            name the store holds as written. A customer a crash left half-added or half-removed
            is listed as such ("incomplete" in --json): its next command adds it anew, and
            'remove' finishes a removal; a customer number is never given twice.
            """,
        arguments: [.init("action", kind: .word(["add", "remove"])), .init("name", kind: .text)],
        options: [.yes],
        examples: [
            "iapsim accounts", "iapsim accounts add alice --storefront GBR",
            "iapsim --account alice buy com.example.app.pro.monthly", "iapsim accounts remove alice --yes",
        ])

    let action: Action
    let assumeYes: Bool

    enum Action: Equatable {
        case list
        case add(String)
        case remove(String)
    }

    init(_ words: ParsedWords) throws(UsageError) {
        let arguments = words.arguments
        assumeYes = words.flag("yes")
        switch arguments.first {
        case nil:
            action = .list
        case let verb? where verb == "add" || verb == "remove":
            guard arguments.count >= 2 else { throw words.error("missing customer name: iapsim accounts \(verb) NAME") }
            try words.expect(count: 2)
            let name = arguments[1]
            guard AccountName.isValid(name) else {
                throw words.error("\(name): not a customer name; use \(AccountName.rule)")
            }
            action = verb == "add" ? .add(name) : .remove(name)
        case let other?:
            throw words.error("unknown accounts action '\(other)'; use add or remove")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        switch action {
        case .list:
            let summaries = try context.catalogAndSession().1.accountSummaries()
            return Report(
                json: .object([
                    (
                        "accounts",
                        .array(
                            summaries.map {
                                .object(
                                    [
                                        ("name", .string($0.name)), ("storefront", .string($0.storefront)),
                                        ("transactionCount", .int($0.transactionCount)),
                                        ("activeSubscriptions", .int($0.activeSubscriptions)),
                                        ("customerNumber", .int($0.number)),
                                    ]
                                        + ($0.condition == .complete
                                            ? [] : [("incomplete", .string($0.condition.rawValue))]))
                            })
                    )
                ]),
                text: {
                    [
                        .table(
                            rows: [["NAME", "STOREFRONT", "TRANSACTIONS", "ACTIVE SUBSCRIPTIONS"]]
                                + summaries.map {
                                    [
                                        $0.name + Self.conditionNote($0.condition), $0.storefront,
                                        String($0.transactionCount), String($0.activeSubscriptions),
                                    ]
                                }, header: true)
                    ]
                })
        case .add(let name):
            let storefront = try context.requestedStorefront()
            let (_, session) = try context.catalogAndSession()
            let added = try session.forAccount(name).addAccount(storefront: storefront)
            return Report(
                json: .object([("account", .string(name)), ("added", .bool(added))]),
                lines: [added ? "Added the customer \(name)." : "The store already has the customer \(name)."])
        case .remove(let name):
            let store = try context.stateStore().forAccount(name)
            if store.location.account == StateLocation.defaultAccount {
                throw StateError.permanentAccount(name: name)
            }
            // Only a name the registry holds, exactly (a half-removed one included), before asking.
            guard try store.accountEntries().contains(where: { $0.name == name }) else {
                _ = try store.removeAccount()  // throws unknownAccount, saying which name differs in case
                throw StateError.unknownAccount(name: name)
            }
            guard
                context.confirm(
                    "Remove the customer \(name) and its history in \(store.location.directory)?", assumeYes: assumeYes)
            else {
                return Report(status: .cancelled, notes: ["Cancelled: nothing was removed."])
            }
            let removed = try store.removeAccount()
            return Report(
                json: .object([("account", .string(name)), ("removed", .array(removed.map(JSON.string)))]),
                lines: ["Removed the customer \(name)."])
        }
    }
}

extension Accounts {
    /// What the list says of a customer a crash left half-added or half-removed.
    static func conditionNote(_ condition: StateStore.AccountCondition) -> String {
        switch condition {
        case .complete: ""
        case .adding: " (half-added: its next command adds it anew)"
        case .removing: " (half-removed: run 'accounts remove' again)"
        }
    }
}

extension Report {
    fileprivate init(json: JSON, text: @escaping () throws -> [Block]) {
        self.init(json: .value(json), text: text)
    }
}
