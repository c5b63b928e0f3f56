import Foundation

/// The `SKTestSession` controls iapsim keeps in the state folder. Each has a built-in default,
/// may take its default from the `.storekit` file's `settings`, and may be overridden with
/// `iapsim settings set KEY VALUE` until `iapsim settings reset`.
public enum SettingKey: String, CaseIterable, Sendable {
    /// `SKPaymentQueue.canMakePayments()`.
    case paymentsAllowed = "payments-allowed"
    /// `SKTestSession.askToBuyEnabled` (`_askToBuyEnabled`).
    case askToBuy = "ask-to-buy"
    /// `SKTestSession.interruptedPurchasesEnabled`.
    case interruptedPurchases = "interrupted-purchases"
    /// `SKTestSession.setSimulatedError(_:forAPI: .purchase)` (`_storeKitErrors` "Purchase",
    /// or the older `_failTransactionsEnabled`).
    case purchaseError = "error.purchase"
    /// `forAPI: .loadProducts` ("Load Products").
    case loadProductsError = "error.load-products"
    /// `forAPI: .appStoreSync` ("App Store Sync"): restore.
    case appStoreSyncError = "error.app-store-sync"
    /// `forAPI: .verification`: transactions arrive `unverified` with this error.
    case verificationError = "error.verification"
    /// `forAPI: .subscriptionStatus`: `Product.SubscriptionInfo.status` fails.
    case subscriptionStatusError = "error.subscription-status"
    /// `forAPI: .appTransaction`: `AppTransaction.shared` fails.
    case appTransactionError = "error.app-transaction"
    /// `forAPI: .refundRequest`: `Transaction.beginRefundRequest` fails.
    case refundRequestError = "error.refund-request"
    /// `forAPI: .offerCodeRedeem`: the offer code redemption sheet fails (`redeem-offer-code`).
    case offerCodeRedeemError = "error.offer-code-redeem"
    /// `auto`: the app finishes each transaction at once; `manual`: it leaves them unfinished.
    case finishTransactions = "finish-transactions"
    /// `SKTestSession.timeRate` (`_timeRate`).
    case timeRate = "time-rate"
    /// `shouldEnterBillingRetryOnRenewal` (`_renewalBillingIssuesEnabled`).
    case billingRetry = "billing-retry"
    /// `billingGracePeriodIsEnabled` (`_billingGracePeriodEnabled`).
    case gracePeriod = "grace-period"
    /// `SKTestSession.locale` (`_locale`).
    case locale
    /// `SKTestSession.storefront` (`_storefront`): the buyer's storefront.
    case storefront
    /// Where signed data says it comes from: Sandbox, Production, Xcode or LocalTesting.
    case environment
    /// Whether consumables, non-consumables and non-renewing subscriptions raise
    /// `ONE_TIME_CHARGE` notifications (the App Store Connect option; on by default here).
    case oneTimeChargeNotifications = "one-time-charge-notifications"
    /// The app's bundle identifier in signed data (`bundleId`).
    case bundleID = "bundle-id"
    /// The app's Apple ID (`appAppleId`), which Production verifiers require.
    case appAppleID = "app-apple-id"

    public var summary: String {
        switch self {
        case .paymentsAllowed: "Whether the device may pay (canMakePayments). true | false"
        case .askToBuy: "Purchases wait for a parent's approval (Ask to Buy). true | false"
        case .interruptedPurchases: "Purchases stop for an action outside the app. true | false"
        case .purchaseError: "Every purchase fails with this error. none | ERROR"
        case .loadProductsError: "Loading products fails with this error. none | ERROR"
        case .appStoreSyncError: "Restore fails with this error. none | ERROR"
        case .verificationError: "Transactions arrive unverified with this error. none | ERROR"
        case .subscriptionStatusError: "Subscription status fails with this error (status). none | ERROR"
        case .appTransactionError: "AppTransaction.shared fails with this error (jws app-transaction). none | ERROR"
        case .refundRequestError: "Refund requests fail with this error. none | ERROR"
        case .offerCodeRedeemError: "Offer code redemption fails with this error (redeem-offer-code). none | ERROR"
        case .finishTransactions: "Whether the app finishes transactions. auto | manual"
        case .timeRate: "How fast subscriptions renew (SKTestSession.TimeRate). e.g. realTime, 1005"
        case .billingRetry: "Renewals fail with a billing issue and enter billing retry. true | false"
        case .gracePeriod: "A billing grace period keeps access during billing retry. true | false"
        case .locale: "Price and text locale. e.g. en_US"
        case .storefront: "The buyer's storefront (ISO 3166-1 alpha-3). e.g. USA, JPN"
        case .environment: "Signed data's environment. Sandbox | Production | Xcode | LocalTesting"
        case .oneTimeChargeNotifications: "ONE_TIME_CHARGE notifications for one-time purchases. true | false"
        case .bundleID: "The app's bundle identifier in signed data. e.g. com.example.app"
        case .appAppleID: "The app's Apple ID in signed data (Production needs one). none | NUMBER"
        }
    }

    /// The values `iapsim settings set KEY` offers, for shell completion: every value of a
    /// closed set (the time rates, the errors by qualified name), and common examples for the
    /// open ones (locale, storefront). Each is one `canonicalValue(_:)` accepts.
    public var suggestedValues: [String] {
        switch self {
        case .paymentsAllowed, .askToBuy, .interruptedPurchases, .billingRetry, .gracePeriod,
            .oneTimeChargeNotifications:
            ["true", "false"]
        case .purchaseError, .loadProductsError, .appStoreSyncError, .verificationError, .subscriptionStatusError,
            .appTransactionError, .refundRequestError, .offerCodeRedeemError:
            ["none"] + SimulatedError.all.filter { StoreKitTestAPI(settingKey: self)?.allows($0) ?? false }.map(\.qualifiedName)
        case .finishTransactions: ["auto", "manual"]
        case .timeRate: TimeRate.allCases.map(\.name)
        case .locale:
            [
                "en_US", "en_GB", "de_DE", "fr_FR", "ja_JP", "es_ES", "it_IT", "pt_BR", "ko_KR", "zh_CN", "zh_TW",
                "hi_IN", "ar_SA",
            ]
        case .storefront: Storefront.all.map(\.countryCode)
        case .environment: AppStoreEnvironment.allCases.map(\.rawValue)
        case .bundleID: ["com.example.app"]
        case .appAppleID: ["none", "1234567890"]
        }
    }

    /// The canonical text of `value` for this key.
    /// - Throws: `SettingsError.invalidValue` naming the key and the value.
    public func canonicalValue(_ value: String) throws(SettingsError) -> String {
        switch self {
        case .paymentsAllowed, .askToBuy, .interruptedPurchases, .billingRetry, .gracePeriod,
            .oneTimeChargeNotifications:
            switch value.lowercased() {
            case "true", "on", "yes", "1": return "true"
            case "false", "off", "no", "0": return "false"
            default: throw .invalidValue(key: rawValue, value: value, expected: "true or false")
            }
        case .purchaseError, .loadProductsError, .appStoreSyncError, .verificationError, .subscriptionStatusError,
            .appTransactionError, .refundRequestError, .offerCodeRedeemError:
            if value == "none" || value == "off" { return "none" }
            guard let api = StoreKitTestAPI(settingKey: self) else { return "none" }
            return try api.error(named: value).qualifiedName
        case .finishTransactions:
            guard value == "auto" || value == "manual" else {
                throw .invalidValue(key: rawValue, value: value, expected: "auto or manual")
            }
            return value
        case .timeRate:
            guard let rate = TimeRate.named(value) else {
                throw .invalidValue(
                    key: rawValue, value: value,
                    expected: "a SKTestSession.TimeRate name or raw value such as realTime or 1005")
            }
            return rate.name
        case .locale:
            guard let locale = LocaleName.canonical(value) else {
                throw .invalidValue(key: rawValue, value: value, expected: "a locale such as en_US")
            }
            return locale
        case .storefront:
            guard let storefront = Storefront.named(value) else {
                throw .invalidValue(
                    key: rawValue, value: value, expected: "an App Store storefront code such as USA or JPN")
            }
            return storefront.countryCode
        case .environment:
            guard let environment = AppStoreEnvironment.named(value) else {
                throw .invalidValue(key: rawValue, value: value, expected: "Sandbox, Production, Xcode or LocalTesting")
            }
            return environment.rawValue
        case .bundleID:
            // App Store Connect: letters, digits, hyphens and periods.
            let allowed = value.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-")
            }
            guard !value.isEmpty, allowed, value.count <= 155 else {
                throw .invalidValue(
                    key: rawValue, value: value, expected: "a bundle identifier such as com.example.app")
            }
            return value
        case .appAppleID:
            if value == "none" { return "none" }
            guard value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber), let number = Int64(value), number > 0 else {
                throw .invalidValue(key: rawValue, value: value, expected: "none or a positive whole number")
            }
            return String(number)
        }
    }
}

/// Why a setting could not be changed.
public enum SettingsError: Error, Equatable, Sendable {
    case unknownKey(String)
    case invalidValue(key: String, value: String, expected: String)
}

extension SettingsError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .unknownKey(let key):
            "unknown setting '\(key)'; the settings are \(SettingKey.allCases.map(\.rawValue).joined(separator: ", "))"
        case .invalidValue(let key, let value, let expected):
            "\(key) \(value): expected \(expected)"
        }
    }
}

/// The settings in force: overrides from the state over the catalog's defaults over
/// iapsim's own.
public struct SessionSettings: Sendable, Equatable {
    /// Where a value came from, for `iapsim settings`.
    public enum Source: String, Sendable {
        case builtIn = "default"
        case catalog, set
    }

    public private(set) var values: [SettingKey: String]
    public private(set) var sources: [SettingKey: Source]

    public init(catalog: CatalogSettings, overrides: [SettingKey: String]) {
        self.init(defaults: catalog)
        self = overriding(overrides)
    }

    /// The catalog's values over iapsim's own, with nothing set.
    public init(defaults catalog: CatalogSettings) {
        var values: [SettingKey: String] = [:]
        var sources: [SettingKey: Source] = [:]
        for key in SettingKey.allCases {
            if let value = catalog.value(for: key) {
                values[key] = value
                sources[key] = .catalog
            } else {
                values[key] = Self.builtIn(key)
                sources[key] = .builtIn
            }
        }
        self.values = values
        self.sources = sources
    }

    /// These settings with `overrides` (from the state) over them: only the keys set are
    /// touched, so a session that keeps its defaults (`StoreSession`) pays for those alone.
    public func overriding(_ overrides: [SettingKey: String]) -> SessionSettings {
        var result = self
        for (key, value) in overrides {
            result.values[key] = value
            result.sources[key] = .set
        }
        return result
    }

    private static func builtIn(_ key: SettingKey) -> String {
        switch key {
        case .paymentsAllowed: "true"
        case .askToBuy, .interruptedPurchases, .billingRetry, .gracePeriod: "false"
        case .purchaseError, .loadProductsError, .appStoreSyncError, .verificationError, .subscriptionStatusError,
            .appTransactionError, .refundRequestError, .offerCodeRedeemError:
            "none"
        case .finishTransactions: "auto"
        case .timeRate: TimeRate.realTime.name
        case .locale: "en_US"
        case .storefront: "USA"
        case .environment: AppStoreEnvironment.sandbox.rawValue
        case .oneTimeChargeNotifications: "true"
        case .bundleID: "com.example.app"
        case .appAppleID: "none"
        }
    }

    public subscript(key: SettingKey) -> String { values[key] ?? "" }

    /// Where the value of `key` came from.
    public func source(of key: SettingKey) -> Source { sources[key] ?? .builtIn }

    private func flag(_ key: SettingKey) -> Bool { self[key] == "true" }

    public var paymentsAllowed: Bool { flag(.paymentsAllowed) }
    public var askToBuy: Bool { flag(.askToBuy) }
    public var interruptedPurchases: Bool { flag(.interruptedPurchases) }
    public var billingRetry: Bool { flag(.billingRetry) }
    /// Apple: the grace period has no effect while billing retry is off.
    public var gracePeriod: Bool { flag(.gracePeriod) && billingRetry }
    public var finishesTransactions: Bool { self[.finishTransactions] == "auto" }
    public var timeRate: TimeRate { TimeRate.named(self[.timeRate]) ?? .realTime }

    public var oneTimeChargeNotifications: Bool { flag(.oneTimeChargeNotifications) }
    /// Where signed data comes from.
    public var environment: AppStoreEnvironment { AppStoreEnvironment(rawValue: self[.environment]) ?? .sandbox }
    public var bundleID: String { self[.bundleID] }
    public var appAppleID: Int64? { Int64(self[.appAppleID]) }

    public func simulatedError(_ key: SettingKey) -> SimulatedError? {
        SimulatedError.named(self[key])
    }
}
