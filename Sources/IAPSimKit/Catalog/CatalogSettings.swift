import Foundation

/// The `SKTestSession` defaults a `.storekit` file's `settings` block holds, as iapsim setting
/// values; keys the file does not set are absent.
public struct CatalogSettings: Sendable, Equatable {
    public var values: [SettingKey: String]
    /// Why an enabled simulated error in the file is not used: one line each.
    public var ignoredErrors: [String] = []

    public init(values: [SettingKey: String] = [:]) {
        self.values = values
    }

    public func value(for key: SettingKey) -> String? { values[key] }

    init(file: StoreKitConfigurationFile.Settings?, locale: String?, storefront: Storefront?) {
        var values: [SettingKey: String] = [:]
        func flag(_ key: SettingKey, _ value: Bool?) {
            if let value { values[key] = value ? "true" : "false" }
        }
        flag(.askToBuy, file?.askToBuyEnabled)
        flag(.billingRetry, file?.renewalBillingIssuesEnabled)
        flag(.gracePeriod, file?.billingGracePeriodEnabled)
        if let raw = file?.timeRate, let rate = TimeRate(rawValue: raw) { values[.timeRate] = rate.name }
        if file?.failTransactionsEnabled == true { values[.purchaseError] = "SKError.unknown" }
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
                values[key] = "none"
                continue
            }
            guard let current = entry.current else {
                // Enabled with no error chosen: the API's first error.
                values[key] =
                    api == .verification
                    ? "VerificationResult.VerificationError.invalidSignature" : "StoreKitError.unknown"
                continue
            }
            do {
                values[key] = try api.error(named: current).qualifiedName
            } catch {
                ignored.append("_storeKitErrors \"\(name)\": \(error.localizedDescription); ignored")
            }
        }
        ignoredErrors = ignored
        if let locale { values[.locale] = locale }
        if let storefront { values[.storefront] = storefront.countryCode }
        self.values = values
    }
}
