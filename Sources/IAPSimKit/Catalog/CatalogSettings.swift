import Foundation

/// The `SKTestSession` defaults a `.storekit` file's `settings` block holds, as typed
/// setting values; keys the file does not set are absent.
public struct CatalogSettings: Sendable, Equatable {
    /// The values the file sets, over iapsim's own.
    public var overrides: SettingOverrides
    /// Why an enabled simulated error in the file is not used: one line each.
    public var ignoredErrors: [String] = []

    public init(overrides: SettingOverrides = SettingOverrides()) {
        self.overrides = overrides
    }

    /// The value the file sets for `key`, as text; nil when it sets none.
    public func value(for key: SettingKey) -> String? { overrides[key] }

    init(file: StoreKitConfigurationFile.Settings?, locale: String?, storefront: Storefront?) {
        var values = SettingOverrides()
        if let flag = file?.askToBuyEnabled { values.set(.askToBuy) { $0.askToBuy = flag } }
        if let flag = file?.renewalBillingIssuesEnabled { values.set(.billingRetry) { $0.billingRetry = flag } }
        if let flag = file?.billingGracePeriodEnabled { values.set(.gracePeriod) { $0.gracePeriodEnabled = flag } }
        if let raw = file?.timeRate, let rate = TimeRate(rawValue: raw) { values.set(.timeRate) { $0.timeRate = rate } }
        if file?.failTransactionsEnabled == true {
            values.set(.purchaseError) { $0.setSimulatedError(.unknown, for: .purchaseError) }
        }
        // Xcode 15's per-API errors: `{name: "Purchase", enabled: true, current: …}`, one entry
        // for each of the nine APIs. An enabled error Apple does not allow for its API, or one
        // iapsim does not know, is left off and said why.
        var ignored: [String] = []
        for entry in file?.storeKitErrors ?? [] {
            guard let name = entry.name, let enabled = entry.enabled else { continue }
            guard let api = StoreKitTestAPI.named(inFile: name) else {
                if enabled { ignored.append("_storeKitErrors \"\(name)\" is not an API iapsim knows; ignored") }
                continue
            }
            guard let key = api.settingKey else {
                if enabled { ignored.append("\(name): iapsim has no such sheet to fail; the error is ignored") }
                continue
            }
            guard enabled else {
                values.set(key) { $0.setSimulatedError(nil, for: key) }
                continue
            }
            guard let current = entry.current else {
                // Enabled with no error chosen: the API's first error.
                let first =
                    api == .verification
                    ? "VerificationResult.VerificationError.invalidSignature" : "StoreKitError.unknown"
                values.set(key) { $0.setSimulatedError(SimulatedError.named(first), for: key) }
                continue
            }
            do {
                let error = try api.error(named: current)
                values.set(key) { $0.setSimulatedError(error, for: key) }
            } catch {
                ignored.append("_storeKitErrors \"\(name)\": \(error.localizedDescription); ignored")
            }
        }
        ignoredErrors = ignored
        if let locale { values.set(.locale) { $0.locale = locale } }
        if let storefront { values.set(.storefront) { $0.storefront = storefront } }
        self.overrides = values
    }
}
