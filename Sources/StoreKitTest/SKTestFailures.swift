import Foundation

import struct IAPSimKit.AccountStatus
import struct IAPSimKit.PendingPurchase
import enum IAPSimKit.SettingKey
import enum IAPSimKit.StoreKitTestAPI
import enum IAPSimKit.TimeRate
import struct IAPSimKit.TransactionHistory

#if canImport(IAPSimStoreKit)
    import IAPSimStoreKit
#else
    import StoreKit
#endif

/// A StoreKit API a test can make fail (`SKTestSession.setSimulatedError(_:forAPI:)`), with
/// the errors Apple lets it fail with (its `Failure`).
public protocol FailableStoreKitAPI: Sendable {
    associatedtype Failure: Sendable
    /// The `iapsim settings` key that holds the error; nil for the Manage Subscriptions sheet,
    /// which no operation on Linux shows (the session keeps its error in memory).
    var _settingKey: SettingKey? { get }
    /// The error as `iapsim settings set` names it.
    func _errorName(_ failure: Failure) -> String
    func _failure(named name: String) -> Failure?
}

/// One failable API.
public struct SKTestFailableAPI<Failure: Sendable>: FailableStoreKitAPI {
    public let _settingKey: SettingKey?
    let name: @Sendable (Failure) -> String
    let failure: @Sendable (String) -> Failure?

    public func _errorName(_ failure: Failure) -> String { name(failure) }
    public func _failure(named name: String) -> Failure? { failure(name) }
}

/// The errors each failable API takes (Apple, "SKTestFailures").
public enum SKTestFailures {
    public enum LoadProducts: Sendable { case generic(StoreKitError) }
    public enum Purchase: Sendable {
        case generic(StoreKitError)
        case purchase(Product.PurchaseError)
    }
    public enum Verification: Sendable { case verification(VerificationResult<Transaction>.VerificationError) }
    public enum AppStoreSync: Sendable { case generic(StoreKitError) }
    public enum SubscriptionStatus: Sendable { case generic(StoreKitError) }
    public enum AppTransaction: Sendable { case generic(StoreKitError) }
    public enum RefundRequest: Sendable {
        case generic(StoreKitError)
        case refundRequest(Transaction.RefundRequestError)
    }
    public enum OfferCodeRedeem: Sendable { case generic(StoreKitError) }
    public enum ManageSubscriptions: Sendable { case generic(StoreKitError) }
}

/// Names as `iapsim help errors` lists them.
enum FailureNames {
    static func storeKit(_ error: StoreKitError) -> String {
        let name: String
        switch error {
        case .unknown: name = "unknown"
        case .userCancelled: name = "userCancelled"
        case .networkError: name = "networkError"
        case .systemError: name = "systemError"
        case .notAvailableInStorefront: name = "notAvailableInStorefront"
        case .notEntitled: name = "notEntitled"
        case .unsupported: name = "unsupported"
        }
        return "StoreKitError." + name
    }

    static func storeKit(named name: String) -> StoreKitError? {
        switch name {
        case "unknown": .unknown
        case "userCancelled": .userCancelled
        case "networkError": .networkError(URLError(.notConnectedToInternet))
        case "systemError": .systemError(SKError(.unknown))
        case "notAvailableInStorefront": .notAvailableInStorefront
        case "notEntitled": .notEntitled
        case "unsupported": .unsupported
        default: nil
        }
    }

    static func generic<Failure>(_ key: SettingKey?, _ make: @escaping @Sendable (StoreKitError) -> Failure)
        -> SKTestFailableAPI<Failure>
    {
        SKTestFailableAPI(
            _settingKey: key,
            name: { failure in
                if case let error as StoreKitError = Mirror(reflecting: failure).children.first?.value {
                    return storeKit(error)
                }
                return "none"
            },
            failure: { name in storeKit(named: name).map(make) })
    }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.LoadProducts> {
    public static var loadProducts: Self { FailureNames.generic(.loadProductsError, { .generic($0) }) }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.AppStoreSync> {
    public static var appStoreSync: Self { FailureNames.generic(.appStoreSyncError, { .generic($0) }) }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.SubscriptionStatus> {
    public static var subscriptionStatus: Self { FailureNames.generic(.subscriptionStatusError, { .generic($0) }) }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.AppTransaction> {
    public static var appTransaction: Self { FailureNames.generic(.appTransactionError, { .generic($0) }) }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.OfferCodeRedeem> {
    public static var offerCodeRedeem: Self { FailureNames.generic(.offerCodeRedeemError, { .generic($0) }) }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.ManageSubscriptions> {
    public static var manageSubscriptions: Self {
        FailureNames.generic(StoreKitTestAPI.manageSubscriptions.settingKey, { .generic($0) })
    }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.Purchase> {
    public static var purchase: Self {
        SKTestFailableAPI(
            _settingKey: .purchaseError,
            name: { failure in
                switch failure {
                case .generic(let error): return FailureNames.storeKit(error)
                case .purchase(let error): return "Product.PurchaseError.\(error)"
                }
            },
            failure: { name in
                FailureNames.storeKit(named: name).map { .generic($0) }
                    ?? Self.purchaseErrors.first { "\($0)" == name }.map { .purchase($0) }
            })
    }

    static var purchaseErrors: [Product.PurchaseError] {
        [
            .invalidQuantity, .productUnavailable, .purchaseNotAllowed, .ineligibleForOffer, .invalidOfferIdentifier,
            .invalidOfferPrice, .invalidOfferSignature, .missingOfferParameters,
        ]
    }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.Verification> {
    public static var verification: Self {
        SKTestFailableAPI(
            _settingKey: .verificationError,
            name: { failure in
                switch failure {
                case .verification(let error): return "VerificationResult.VerificationError.\(error)"
                }
            },
            failure: { name in
                let all: [VerificationResult<Transaction>.VerificationError] = [
                    .revokedCertificate, .invalidCertificateChain, .invalidDeviceVerification, .invalidEncoding,
                    .invalidSignature, .missingRequiredProperties,
                ]
                return all.first { "\($0)" == name }.map { .verification($0) }
            })
    }
}

extension FailableStoreKitAPI where Self == SKTestFailableAPI<SKTestFailures.RefundRequest> {
    public static var refundRequest: Self {
        SKTestFailableAPI(
            _settingKey: .refundRequestError,
            name: { failure in
                switch failure {
                case .generic(let error): return FailureNames.storeKit(error)
                case .refundRequest(let error): return "Transaction.RefundRequestError.\(error)"
                }
            },
            failure: { name in
                FailureNames.storeKit(named: name).map { .generic($0) }
                    ?? (name == "duplicateRequest"
                        ? .refundRequest(.duplicateRequest) : name == "failed" ? .refundRequest(.failed) : nil)
            })
    }
}

/// StoreKitTest's `SKTestError`: why a session could not do what it was asked.
public struct SKTestError: Error, LocalizedError, CustomNSError, Hashable, Sendable {
    public enum Code: Int, Sendable {
        case fileNotFound = 0
        case invalidFile = 1
        case invalidAction = 2
        case invalidProductIdentifier = 3
        case invalidProductType = 4
        case invalidURL = 5
    }

    public let code: Code
    /// iapsim's one-line message: what was refused, and why.
    public let detail: String

    init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public static var errorDomain: String { "SKTestErrorDomain" }
    public var errorCode: Int { code.rawValue }
    public var errorDescription: String? { detail }
}

/// StoreKitTest's `SKTestTransaction`: a transaction as Xcode's Transaction Manager lists it.
open class SKTestTransaction: NSObject, @unchecked Sendable {
    open private(set) var identifier: Int
    open private(set) var originalTransactionIdentifier: Int
    open private(set) var productIdentifier: String
    open private(set) var purchaseDate: Date
    open private(set) var expirationDate: Date?
    open private(set) var revocationDate: Date?
    /// When it was refunded or revoked: Apple's name for `revocationDate` here.
    open var cancelDate: Date? { revocationDate }
    open private(set) var state: SKPaymentTransactionState
    open private(set) var pendingAskToBuyConfirmation: Bool
    open private(set) var hasPurchaseIssue: Bool
    open private(set) var isFinished: Bool
    /// Whether the subscription this transaction belongs to will renew; false for other
    /// products.
    open private(set) var autoRenewingEnabled: Bool
    /// Whether a price increase waits for the subscriber's consent.
    open private(set) var isPendingPriceIncreaseConsent: Bool

    init(_ entry: TransactionHistory.Entry, chain: AccountStatus.SubscriptionStatus?) {
        let transaction = entry.transaction
        identifier = Int(clamping: transaction.id)
        originalTransactionIdentifier = Int(clamping: transaction.originalID)
        productIdentifier = transaction.productID
        purchaseDate = transaction.purchaseDate
        expirationDate = transaction.expirationDate
        revocationDate = transaction.revocationDate
        state = .purchased
        pendingAskToBuyConfirmation = false
        hasPurchaseIssue = chain?.isInBillingRetry ?? false
        isFinished = entry.isFinished
        autoRenewingEnabled = chain?.willAutoRenew ?? false
        isPendingPriceIncreaseConsent = chain?.priceIncreaseStatus == .pending
        super.init()
    }

    init(pending: PendingPurchase) {
        identifier = Int(clamping: pending.id)
        originalTransactionIdentifier = Int(clamping: pending.id)
        productIdentifier = pending.productID
        purchaseDate = pending.requestDate
        state = pending.reason == .askToBuy ? .deferred : .failed
        pendingAskToBuyConfirmation = pending.reason == .askToBuy
        hasPurchaseIssue = pending.reason == .interrupted
        isFinished = false
        autoRenewingEnabled = false
        isPendingPriceIncreaseConsent = false
        super.init()
    }
}

extension SKTestSession {
    /// `SKTestSession.TimeRate`, with Apple's raw values: the library's own list, which the
    /// `.storekit` file's `_timeRate` and `iapsim settings set time-rate` read too.
    public typealias TimeRate = IAPSimKit.TimeRate
}
