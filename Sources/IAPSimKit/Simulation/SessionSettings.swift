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
    /// The app's shared secret, which `POST /verifyReceipt` requires as `password` for
    /// receipts with auto-renewable subscriptions (Apple, "verifyReceipt").
    case sharedSecret = "shared-secret"

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
        case .finishTransactions: "Whether the app's own purchases are finished at once. auto | manual"
        case .timeRate: "How fast subscriptions renew (SKTestSession.TimeRate). e.g. realTime, 1005"
        case .billingRetry: "Renewals fail with a billing issue and enter billing retry. true | false"
        case .gracePeriod: "A billing grace period keeps access during billing retry. true | false"
        case .locale: "Price and text locale. e.g. en_US"
        case .storefront: "The buyer's storefront (ISO 3166-1 alpha-3). e.g. USA, JPN"
        case .environment: "Signed data's environment. Sandbox | Production | Xcode | LocalTesting"
        case .oneTimeChargeNotifications: "ONE_TIME_CHARGE notifications for one-time purchases. true | false"
        case .bundleID: "The app's bundle identifier in signed data. e.g. com.example.app"
        case .appAppleID: "The app's Apple ID in signed data (Production needs one). none | NUMBER"
        case .sharedSecret: "The shared secret /verifyReceipt requires as password. none | SECRET"
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
            ["none"]
                + SimulatedError.all.filter { StoreKitTestAPI(settingKey: self)?.allows($0) ?? false }.map(
                    \.qualifiedName)
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
        case .sharedSecret: ["none"]
        }
    }

    /// The canonical text of `value` for this key: what `settings` shows once it is set.
    /// - Throws: `SettingsError.invalidValue` naming the key and the value.
    public func canonicalValue(_ value: String) throws(SettingsError) -> String {
        var settings = SessionSettings()
        try settings.set(self, text: value)
        return settings.text(for: self)
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
/// iapsim's own, each a typed value. `SettingKey` names them for `iapsim settings set KEY
/// VALUE`: `set(_:text:)` reads a value's text into its field, `text(for:)` shows it back.
public struct SessionSettings: Sendable, Equatable {
    /// Where a value came from, for `iapsim settings`.
    public enum Source: String, Sendable {
        case builtIn = "default"
        case catalog, set
    }

    /// `finish-transactions`: whether the app finishes each transaction at once.
    public enum TransactionFinishing: String, Sendable, CaseIterable {
        case auto, manual
    }

    /// `SKPaymentQueue.canMakePayments()`.
    public var paymentsAllowed = true
    /// `SKTestSession.askToBuyEnabled`.
    public var askToBuy = false
    /// `SKTestSession.interruptedPurchasesEnabled`.
    public var interruptedPurchases = false
    /// `SKTestSession.setSimulatedError(_:forAPI:)`: the error each API fails with; absent, it
    /// does not fail.
    public var simulatedErrors: [StoreKitTestAPI: SimulatedError] = [:]
    public var finishTransactions = TransactionFinishing.auto
    /// `SKTestSession.timeRate`.
    public var timeRate = TimeRate.realTime
    /// `shouldEnterBillingRetryOnRenewal`.
    public var billingRetry = false
    /// `billingGracePeriodIsEnabled`, as set; `gracePeriod` is what applies.
    public var gracePeriodEnabled = false
    /// `SKTestSession.locale`, canonical (`en_US`).
    public var locale = "en_US"
    /// `SKTestSession.storefront`: the buyer's storefront.
    public var storefront = Storefront.named("USA")!
    /// Where signed data says it comes from.
    public var environment = AppStoreEnvironment.sandbox
    /// Whether one-time purchases raise `ONE_TIME_CHARGE`.
    public var oneTimeChargeNotifications = true
    /// The app's bundle identifier in signed data (`bundleId`).
    public var bundleID = "com.example.app"
    /// The app's Apple ID (`appAppleId`); nil for none.
    public var appAppleID: Int64? = nil
    /// The app's shared secret for `/verifyReceipt`; nil for none (any password is taken).
    public var sharedSecret: String? = nil

    /// Where each value came from, in `SettingKey.allCases` order (an array, not a dictionary
    /// keyed by `SettingKey`: see `SettingKeys`).
    private var sources: [Source]

    /// iapsim's own values.
    public init() {
        self = Self.builtIn
    }

    /// iapsim's own values, made once: every read of the state lays the app's settings over a
    /// customer's, resetting those it does not set to these (a dictionary built per key, per
    /// read, was a sixth of `serve`'s time).
    private static let builtIn = SessionSettings(
        sources: Array(repeating: .builtIn, count: SettingKey.ordered.count))

    private init(sources: [Source]) {
        self.sources = sources
    }

    public init(catalog: CatalogSettings, overrides: SettingOverrides) {
        self.init(defaults: catalog)
        self = overriding(overrides)
    }

    /// The catalog's values over iapsim's own, with nothing set.
    public init(defaults catalog: CatalogSettings) {
        self = Self().applying(catalog.overrides, as: .catalog)
    }

    /// These settings with `overrides` (from the state) over them: only the keys set are
    /// touched, so a session that keeps its defaults (`StoreSession`) pays for those alone.
    public func overriding(_ overrides: SettingOverrides) -> SessionSettings {
        applying(overrides, as: .set)
    }

    /// `overriding(overrides).timeRate` without copying the rest: the clock's rate, which a
    /// request that only tells the time needs alone.
    func timeRate(with overrides: SettingOverrides) -> TimeRate {
        overrides.keys.contains(.timeRate) ? overrides.values.timeRate : timeRate
    }

    private func applying(_ overrides: SettingOverrides, as source: Source) -> SessionSettings {
        var result = self
        for key in overrides.keys {
            result.copy(key, from: overrides.values)
            result.sources[key.ordinal] = source
        }
        return result
    }

    /// Apple: the grace period has no effect while billing retry is off.
    public var gracePeriod: Bool { gracePeriodEnabled && billingRetry }
    public var finishesTransactions: Bool { finishTransactions == .auto }

    /// The locale the session shows products in when one is set (`settings set locale`,
    /// `SKTestSession.locale`); nil leaves it to the catalog (its storefront's, or the file's).
    public var localeOverride: String? { source(of: .locale) == .set ? self[.locale] : nil }

    /// The simulated error of the API `key` holds the error of; nil when it does not fail.
    public func simulatedError(_ key: SettingKey) -> SimulatedError? {
        StoreKitTestAPI(settingKey: key).flatMap { simulatedErrors[$0] }
    }

    /// Where the value of `key` came from.
    public func source(of key: SettingKey) -> Source { sources[key.ordinal] }

    /// The value of `key` as `iapsim settings` shows it, and as the state file keeps it.
    public subscript(key: SettingKey) -> String { text(for: key) }

    /// The value of `key` as text: `true`, `none`, `StoreKitError.networkError`, `USA`.
    public func text(for key: SettingKey) -> String {
        switch key {
        case .paymentsAllowed: String(paymentsAllowed)
        case .askToBuy: String(askToBuy)
        case .interruptedPurchases: String(interruptedPurchases)
        case .billingRetry: String(billingRetry)
        case .gracePeriod: String(gracePeriodEnabled)
        case .oneTimeChargeNotifications: String(oneTimeChargeNotifications)
        case .purchaseError, .loadProductsError, .appStoreSyncError, .verificationError, .subscriptionStatusError,
            .appTransactionError, .refundRequestError, .offerCodeRedeemError:
            simulatedError(key)?.qualifiedName ?? "none"
        case .finishTransactions: finishTransactions.rawValue
        case .timeRate: timeRate.name
        case .locale: locale
        case .storefront: storefront.countryCode
        case .environment: environment.rawValue
        case .bundleID: bundleID
        case .appAppleID: appAppleID.map(String.init) ?? "none"
        case .sharedSecret: sharedSecret ?? "none"
        }
    }

    /// Reads `text` into the field of `key`, as `iapsim settings set KEY VALUE` gives it.
    /// - Throws: `SettingsError.invalidValue` naming the key, the value and what it expects.
    public mutating func set(_ key: SettingKey, text value: String) throws(SettingsError) {
        func invalid(_ expected: String) -> SettingsError {
            .invalidValue(key: key.rawValue, value: value, expected: expected)
        }
        switch key {
        case .paymentsAllowed, .askToBuy, .interruptedPurchases, .billingRetry, .gracePeriod,
            .oneTimeChargeNotifications:
            let flag: Bool
            switch value.lowercased() {
            case "true", "on", "yes", "1": flag = true
            case "false", "off", "no", "0": flag = false
            default: throw invalid("true or false")
            }
            switch key {
            case .paymentsAllowed: paymentsAllowed = flag
            case .askToBuy: askToBuy = flag
            case .interruptedPurchases: interruptedPurchases = flag
            case .billingRetry: billingRetry = flag
            case .gracePeriod: gracePeriodEnabled = flag
            default: oneTimeChargeNotifications = flag
            }
        case .purchaseError, .loadProductsError, .appStoreSyncError, .verificationError, .subscriptionStatusError,
            .appTransactionError, .refundRequestError, .offerCodeRedeemError:
            guard let api = StoreKitTestAPI(settingKey: key) else { return }
            simulatedErrors[api] = value == "none" || value == "off" ? nil : try api.error(named: value)
        case .finishTransactions:
            guard let finishing = TransactionFinishing(rawValue: value) else { throw invalid("auto or manual") }
            finishTransactions = finishing
        case .timeRate:
            guard let rate = TimeRate.named(value) else {
                throw invalid("a SKTestSession.TimeRate name or raw value such as realTime or 1005")
            }
            timeRate = rate
        case .locale:
            guard let canonical = LocaleName.canonical(value) else { throw invalid("a locale such as en_US") }
            locale = canonical
        case .storefront:
            guard let named = Storefront.named(value) else {
                throw invalid("an App Store storefront code such as USA or JPN")
            }
            storefront = named
        case .environment:
            guard let named = AppStoreEnvironment.named(value) else {
                throw invalid("Sandbox, Production, Xcode or LocalTesting")
            }
            environment = named
        case .bundleID:
            // App Store Connect: letters, digits, hyphens and periods.
            let allowed = value.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-")
            }
            guard !value.isEmpty, allowed, value.count <= 155 else {
                throw invalid("a bundle identifier such as com.example.app")
            }
            bundleID = value
        case .appAppleID:
            if value == "none" {
                appAppleID = nil
                return
            }
            guard value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber), let number = Int64(value), number > 0
            else { throw invalid("none or a positive whole number") }
            appAppleID = number
        case .sharedSecret:
            if value == "none" {
                sharedSecret = nil
                return
            }
            // App Store Connect's shared secrets are 32 hexadecimal digits; any short printable
            // word is taken, so a test may use a readable one.
            guard !value.isEmpty, value.count <= 128,
                value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
            else { throw invalid("none or a secret of printable ASCII without spaces (up to 128)") }
            sharedSecret = value
        }
    }

    /// The simulated error of the API `key` names, set as it is: a state written before each
    /// API took only the errors Apple allows it keeps its error until it is set again.
    mutating func setSimulatedError(_ error: SimulatedError?, for key: SettingKey) {
        guard let api = StoreKitTestAPI(settingKey: key) else { return }
        simulatedErrors[api] = error
    }

    /// Takes the value of `key` from `other`.
    mutating func copy(_ key: SettingKey, from other: SessionSettings) {
        switch key {
        case .paymentsAllowed: paymentsAllowed = other.paymentsAllowed
        case .askToBuy: askToBuy = other.askToBuy
        case .interruptedPurchases: interruptedPurchases = other.interruptedPurchases
        case .billingRetry: billingRetry = other.billingRetry
        case .gracePeriod: gracePeriodEnabled = other.gracePeriodEnabled
        case .oneTimeChargeNotifications: oneTimeChargeNotifications = other.oneTimeChargeNotifications
        case .purchaseError, .loadProductsError, .appStoreSyncError, .verificationError, .subscriptionStatusError,
            .appTransactionError, .refundRequestError, .offerCodeRedeemError:
            setSimulatedError(other.simulatedError(key), for: key)
        case .finishTransactions: finishTransactions = other.finishTransactions
        case .timeRate: timeRate = other.timeRate
        case .locale: locale = other.locale
        case .storefront: storefront = other.storefront
        case .environment: environment = other.environment
        case .bundleID: bundleID = other.bundleID
        case .appAppleID: appAppleID = other.appAppleID
        case .sharedSecret: sharedSecret = other.sharedSecret
        }
    }
}
