/// The StoreKit APIs Xcode can make fail (`SKTestSession.setSimulatedError(_:forAPI:)`, the
/// `.storekit` file's `_storeKitErrors`), each with the errors Apple allows for it
/// ("SKTestFailures"): every API takes `StoreKitError` (`generic`), Purchase also
/// `Product.PurchaseError`, Verification only `VerificationResult.VerificationError`, Refund
/// Request also `Transaction.RefundRequestError`. Purchase keeps the `SKError` codes the
/// deprecated `SKTestSession.failureError` accepted.
public enum StoreKitTestAPI: String, Sendable, CaseIterable {
    case loadProducts, purchase, verification, appStoreSync, subscriptionStatus, appTransaction
    case manageSubscriptions, refundRequest, offerCodeRedeem

    /// The name Xcode writes in `_storeKitErrors` (the sheets with " Sheet").
    public var fileName: String {
        switch self {
        case .loadProducts: "Load Products"
        case .purchase: "Purchase"
        case .verification: "Verification"
        case .appStoreSync: "App Store Sync"
        case .subscriptionStatus: "Subscription Status"
        case .appTransaction: "App Transaction"
        case .manageSubscriptions: "Manage Subscriptions Sheet"
        case .refundRequest: "Refund Request Sheet"
        case .offerCodeRedeem: "Offer Code Redeem Sheet"
        }
    }

    /// The API named as a `.storekit` file names it, with or without " Sheet".
    public static func named(inFile name: String) -> StoreKitTestAPI? {
        allCases.first { $0.fileName == name || $0.fileName == name + " Sheet" }
    }

    /// The session setting that holds its simulated error; nil for the API iapsim has no
    /// operation for (the Manage Subscriptions sheet), whose error a `.storekit` file may
    /// enable but nothing could fail with.
    public var settingKey: SettingKey? {
        switch self {
        case .loadProducts: .loadProductsError
        case .purchase: .purchaseError
        case .verification: .verificationError
        case .appStoreSync: .appStoreSyncError
        case .subscriptionStatus: .subscriptionStatusError
        case .appTransaction: .appTransactionError
        case .refundRequest: .refundRequestError
        case .offerCodeRedeem: .offerCodeRedeemError
        case .manageSubscriptions: nil
        }
    }

    public init?(settingKey: SettingKey) {
        guard let api = Self.allCases.first(where: { $0.settingKey == settingKey }) else { return nil }
        self = api
    }

    /// The `SKError` codes `SKTestSession.failureError` took, still accepted for Purchase.
    static let failureErrorCodes: Set<String> = [
        "unknown", "invalidOfferIdentifier", "invalidSignature", "missingOfferParams", "invalidOfferPrice",
    ]

    /// Whether Apple lets this API fail with `error`.
    public func allows(_ error: SimulatedError) -> Bool {
        switch (self, error.domain) {
        case (.verification, .verificationError): true
        case (.verification, _): false
        case (_, .storeKitError): true
        case (.purchase, .purchaseError): true
        case (.purchase, .skError): Self.failureErrorCodes.contains(error.name)
        case (.refundRequest, .refundRequestError): true
        default: false
        }
    }

    /// What it allows, for a message: "StoreKitError or Product.PurchaseError".
    public var allowedErrors: String {
        switch self {
        case .verification: "a VerificationResult.VerificationError"
        case .purchase:
            "a StoreKitError or Product.PurchaseError (or SKError unknown, invalidOfferIdentifier, "
                + "invalidSignature, missingOfferParams, invalidOfferPrice)"
        case .refundRequest: "a StoreKitError or Transaction.RefundRequestError"
        default: "a StoreKitError"
        }
    }

    /// The error `text` names, if this API may fail with it.
    /// - Throws: `SettingsError.invalidValue` naming the setting and the value.
    public func error(named text: String) throws(SettingsError) -> SimulatedError {
        let key = settingKey?.rawValue ?? fileName
        // A bare name that several domains share resolves to the one this API takes.
        let error =
            SimulatedError.named(text).flatMap { allows($0) ? $0 : nil }
            ?? SimulatedError.all.first { $0.name == text && allows($0) }
        guard let error else {
            guard let other = SimulatedError.named(text) else {
                throw .invalidValue(
                    key: key, value: text, expected: "none or \(allowedErrors); see 'iapsim help errors'")
            }
            throw .invalidValue(
                key: key, value: text,
                expected: "\(allowedErrors): Apple's \(fileName) API cannot fail with \(other.qualifiedName)")
        }
        return error
    }
}
