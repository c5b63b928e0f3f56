import Foundation

/// The `SKTestSession` defaults a `.storekit` file's `settings` block holds, as iapsim setting
/// values; keys the file does not set are absent.
public struct CatalogSettings: Sendable, Equatable {
    public var values: [SettingKey: String]

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
        // Xcode 15's per-API errors: `{name: "Purchase", enabled: true, current: …}`.
        let apis: [String: SettingKey] = [
            "Purchase": .purchaseError, "Load Products": .loadProductsError, "App Store Sync": .appStoreSyncError,
        ]
        for entry in file?.storeKitErrors ?? [] {
            guard let name = entry.name, let key = apis[name], let enabled = entry.enabled else { continue }
            values[key] =
                enabled
                ? (entry.current.flatMap(SimulatedError.named)?.qualifiedName ?? "StoreKitError.unknown") : "none"
        }
        if let locale { values[.locale] = locale }
        if let storefront { values[.storefront] = storefront.countryCode }
        self.values = values
    }
}
