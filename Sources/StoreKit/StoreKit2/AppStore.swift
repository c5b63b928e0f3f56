import Foundation
import IAPSimKit

/// StoreKit 2's `AppStore`.
public enum AppStore {
    /// Where signed data comes from.
    public struct Environment: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let production = Environment(rawValue: "Production")
        public static let sandbox = Environment(rawValue: "Sandbox")
        public static let xcode = Environment(rawValue: "Xcode")
    }

    /// Whether the person may pay: the session's `payments-allowed` setting
    /// (`SKPaymentQueue.canMakePayments()`).
    public static var canMakePayments: Bool {
        (try? StoreRuntime.shared.withStore { _, session in try session.settings().paymentsAllowed }) ?? true
    }

    /// Syncs the account's transactions with the App Store: iapsim's `restore`.
    /// - Throws: the simulated App Store Sync error, if the session sets one.
    public static func sync() async throws {
        do {
            _ = try StoreRuntime.shared.withStore { _, session in try session.restore() }
        } catch {
            throw StoreKit2Errors.map(error)
        }
    }
}

/// StoreKit 2's `Storefront`: the App Store country of the account.
public struct Storefront: Identifiable, Equatable, Hashable, Sendable {
    /// ISO 3166-1 alpha-3, e.g. `USA`.
    public let countryCode: String
    /// Apple's storefront identifier, e.g. `143441`.
    public let id: String
    public let currency: Locale.Currency?

    init(countryCode: String) {
        let storefront = IAPSimKit.Storefront.named(countryCode)
        self.countryCode = countryCode
        id = storefront?.appleID ?? ""
        currency = storefront.map { Locale.Currency($0.currencyCode) }
    }

    /// The account's storefront: the session's, else the `.storekit` file's.
    public static var current: Storefront? {
        get async {
            try? StoreRuntime.shared.withStore { catalog, _ in Storefront(countryCode: catalog.storefront.countryCode) }
        }
    }
}
