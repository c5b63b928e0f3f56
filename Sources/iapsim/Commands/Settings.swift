import Foundation
import IAPSimKit

struct Settings: CLICommand {
    static let spec = CommandSpec(
        name: "settings", abstract: "Show or change the session settings (SKTestSession controls).",
        synopsis: "[set KEY VALUE | reset [KEY]]",
        discussion: """
            The settings persist in the state folder. Defaults come from the .storekit file's
            settings block (_askToBuyEnabled, _storeKitErrors, _timeRate, …) where it has them.
            'iapsim help settings-keys' lists the keys and values, and whose each is: the
            app's (environment, bundle-id, app-apple-id, shared-secret, time-rate, grace-period,
            one-time-charge-notifications), shared by every customer, or a customer's (the rest,
            as a device's or an account's are), which applies to the customer --account names
            (IAPSIM_ACCOUNT, else default): 'settings set' says which it changed. 'settings
            reset' is SKTestSession.resetToDefaultState().
            """,
        arguments: [
            .init("action", kind: .word(["set", "reset"])), .init("key", kind: .settingKey),
            .init("value", kind: .settingValue),
        ],
        options: [],
        examples: [
            "iapsim settings", "iapsim settings set ask-to-buy true",
            "iapsim settings set error.purchase StoreKitError.networkError", "iapsim settings reset",
        ])

    let action: Action

    enum Action: Equatable {
        case show
        case set(SettingKey, value: String)
        case reset(SettingKey?)
    }

    init(_ words: ParsedWords) throws(UsageError) {
        let arguments = words.arguments
        switch arguments.first {
        case nil:
            action = .show
        case "set":
            guard arguments.count == 3 else { throw words.error("usage: iapsim settings set KEY VALUE") }
            action = .set(try Self.key(arguments[1], words), value: arguments[2])
        case "reset":
            try words.expect(count: 2)
            action = .reset(arguments.count == 2 ? try Self.key(arguments[1], words) : nil)
        case let other?:
            throw words.error("unknown settings action '\(other)'; use set or reset")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let settings: SessionSettings
        switch action {
        case .show: settings = try session.settings()
        case .set(let key, let value): settings = try session.setSetting(key, to: value)
        case .reset(let key): settings = try session.resetSettings(key)
        }
        let armed = try session.serverFaults()
        let json = JSON.object([
            ("settings", .object(SettingKey.allCases.map { ($0.rawValue, .string(settings[$0])) })),
            ("sources", .object(SettingKey.allCases.map { ($0.rawValue, .string(settings.source(of: $0).rawValue)) })),
            ("serverErrors", .array(armed.map(\.publicJSON))),
        ])
        switch action {
        case .set(let key, _):
            let whose =
                key.isAppWide
                ? "the app's, for every customer"
                : "customer \(try context.stateStore().location.account); --account picks another"
            return Report(json: json, lines: ["\(key.rawValue) = \(settings[key]) (\(whose))"])
        case .reset(let key?):
            return Report(
                json: json, lines: ["\(key.rawValue) = \(settings[key]) (\(settings.source(of: key).rawValue))"])
        default:
            let rows =
                [["SETTING", "VALUE", "FROM"]]
                + SettingKey.allCases.map { [$0.rawValue, settings[$0], settings.source(of: $0).rawValue] }
            return Report(json: .value(json)) {
                [.table(rows: rows)] + armed.map { .line("Server error armed ('iapsim server-error'): \($0.summary)") }
            }
        }
    }
}

extension Settings {
    private static func key(_ word: String, _ words: ParsedWords) throws(UsageError) -> SettingKey {
        guard let key = SettingKey(rawValue: word) else {
            let known = SettingKey.allCases.map(\.rawValue)
            let meant =
                SettingKey.xcodeNames[word]
                ?? SettingKey.xcodeNames.first { $0.key.lowercased() == word.lowercased() }?.value
            let hint =
                (meant?.rawValue ?? Suggestion.nearest(to: word, among: known)).map { "; did you mean '\($0)'?" } ?? ""
            throw words.error("unknown setting '\(word)'\(hint); 'iapsim help settings-keys' lists them")
        }
        return key
    }
}

extension SettingKey {
    /// `SKTestSession`'s and the `.storekit` file's names for the settings, as a developer who
    /// knows Xcode types them.
    static let xcodeNames: [String: SettingKey] = [
        "askToBuyEnabled": .askToBuy, "_askToBuyEnabled": .askToBuy,
        "interruptedPurchasesEnabled": .interruptedPurchases, "failTransactionsEnabled": .purchaseError,
        "failureError": .purchaseError, "_failTransactionsEnabled": .purchaseError, "timeRate": .timeRate,
        "_timeRate": .timeRate, "billingGracePeriodIsEnabled": .gracePeriod, "_billingGracePeriodEnabled": .gracePeriod,
        "shouldEnterBillingRetryOnRenewal": .billingRetry, "_renewalBillingIssuesEnabled": .billingRetry,
        "_locale": .locale, "_storefront": .storefront, "canMakePayments": .paymentsAllowed,
        "_storeKitErrors": .purchaseError,
    ]
}
