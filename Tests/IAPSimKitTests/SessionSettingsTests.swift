import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The session settings are typed fields; `SettingKey` reads a value's text into its field and
/// shows it back, and the state file keeps each set key's text as iapsim always wrote it.
@Suite struct SessionSettingsTests {
    /// `simulation.settings` as iapsim wrote it before the settings were typed: every key, in
    /// its canonical text.
    private static let written: [(String, String)] = [
        ("app-apple-id", "1234567890"), ("ask-to-buy", "true"), ("billing-retry", "true"),
        ("bundle-id", "com.example.other"), ("environment", "Production"), ("error.app-store-sync", "none"),
        ("error.app-transaction", "StoreKitError.notEntitled"), ("error.load-products", "StoreKitError.networkError"),
        ("error.offer-code-redeem", "none"), ("error.purchase", "Product.PurchaseError.invalidQuantity"),
        ("error.refund-request", "Transaction.RefundRequestError.duplicateRequest"),
        ("error.subscription-status", "StoreKitError.unknown"),
        ("error.verification", "VerificationResult.VerificationError.invalidSignature"),
        ("finish-transactions", "manual"), ("grace-period", "true"), ("interrupted-purchases", "false"),
        ("locale", "de_DE"), ("one-time-charge-notifications", "false"), ("payments-allowed", "false"),
        ("shared-secret", "0123456789abcdef0123456789abcdef"),
        ("storefront", "JPN"), ("time-rate", "oneRenewalEveryTwoSeconds"),
    ]

    @Test func aStateWrittenBeforeReadsIntoTypedFieldsAndWritesBackTheSame() throws {
        let json = JSONValue.object([("settings", .object(Self.written.map { ($0.0, .string($0.1)) }))])
        let state = try SimulationState(try Reader(json, at: ""))
        #expect(state.settings.keys.count == SettingKey.allCases.count)
        let settings = SessionSettings().overriding(state.settings)
        #expect(!settings.paymentsAllowed && settings.askToBuy && settings.billingRetry && settings.gracePeriod)
        #expect(settings.appAppleID == 1_234_567_890 && settings.environment == .production)
        #expect(settings.storefront.countryCode == "JPN" && settings.timeRate == .oneRenewalEveryTwoSeconds)
        #expect(!settings.finishesTransactions && !settings.oneTimeChargeNotifications)
        #expect(settings.sharedSecret == "0123456789abcdef0123456789abcdef")
        #expect(settings.simulatedError(.purchaseError)?.qualifiedName == "Product.PurchaseError.invalidQuantity")
        #expect(settings.simulatedError(.appStoreSyncError) == nil)
        #expect(settings.source(of: .locale) == .set)
        #expect(state.json["settings"] == json["settings"])
        #expect(try SimulationState(try Reader(state.json, at: "")) == state)
    }

    /// An error an API took before each API took only Apple's is kept as it was written.
    @Test func anErrorFromBeforeTheAPIsWereCheckedIsKept() throws {
        let json = JSONValue.object([
            ("settings", .object([("error.verification", .string("StoreKitError.networkError"))]))
        ])
        let state = try SimulationState(try Reader(json, at: ""))
        #expect(state.settings[.verificationError] == "StoreKitError.networkError")
        #expect(state.json["settings"] == json["settings"])
    }

    @Test(arguments: [
        ("ask-to-buy", "on", "true"), ("payments-allowed", "0", "false"),
        ("error.purchase", "networkError", "StoreKitError.networkError"), ("error.purchase", "off", "none"),
        ("app-apple-id", "0012", "12"), ("app-apple-id", "none", "none"), ("finish-transactions", "auto", "auto"),
    ])
    func aValueTextIsShownBackCanonical(key: String, text: String, shown: String) throws {
        let key = try #require(SettingKey(rawValue: key))
        var overrides = SettingOverrides()
        try overrides.set(key, text: text)
        #expect(overrides[key] == shown)
        #expect(try key.canonicalValue(text) == shown)
        overrides.remove(key)
        #expect(overrides == SettingOverrides() && overrides[key] == nil)
    }

    @Test func everySuggestedValueIsOneTheKeyTakes() throws {
        for key in SettingKey.allCases {
            for value in key.suggestedValues {
                var settings = SessionSettings()
                try settings.set(key, text: value)
                #expect(settings.text(for: key) == value, "\(key.rawValue) \(value)")
            }
        }
    }
}
