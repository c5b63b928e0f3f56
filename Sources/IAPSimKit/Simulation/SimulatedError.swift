/// An error StoreKit can report, by Apple's name and number, for a simulated failure.
///
/// Names and codes: `SKError.Code` (SKErrorDomain), StoreKit 2's `StoreKitError`,
/// `Product.PurchaseError`, `VerificationResult.VerificationError` and
/// `Transaction.RefundRequestError`. A bare name resolves in that order, so `unknown` is
/// `SKError.unknown` (0); qualify it (`StoreKitError.unknown`) to mean the other. Which API
/// may fail with which is `StoreKitTestAPI`'s.
public struct SimulatedError: Sendable, Equatable, Hashable {
    public enum Domain: String, Sendable, CaseIterable {
        case skError = "SKError"
        case storeKitError = "StoreKitError"
        case purchaseError = "Product.PurchaseError"
        case verificationError = "VerificationResult.VerificationError"
        case refundRequestError = "Transaction.RefundRequestError"
    }

    /// What the failure means to a script: the exit status it maps to.
    public enum Kind: Sendable {
        case failed, cancelled, notAllowed, notAvailable
    }

    public var domain: Domain
    public var name: String
    /// `SKError.Code` raw value; nil for StoreKit 2's Swift-only errors.
    public var code: Int?

    /// `SKError.paymentCancelled` and `StoreKitError.userCancelled` are cancels, the
    /// not-allowed and not-available errors keep their own exit codes, the rest are failures.
    public var kind: Kind {
        switch name {
        case "paymentCancelled", "userCancelled", "overlayCancelled": .cancelled
        case "paymentNotAllowed", "purchaseNotAllowed": .notAllowed
        case "storeProductNotAvailable", "productUnavailable", "notAvailableInStorefront": .notAvailable
        default: .failed
        }
    }

    /// `SKError.unknown`, `StoreKitError.networkError`.
    public var qualifiedName: String { "\(domain.rawValue).\(name)" }

    public static let all: [SimulatedError] =
        skErrorNames.enumerated().compactMap { code, name in
            name.isEmpty ? nil : SimulatedError(domain: .skError, name: name, code: code)
        }
        + StoreKitErrorName.allCases.map { SimulatedError.storeKit($0) }
        + PurchaseErrorName.allCases.map { SimulatedError.purchase($0) }
        + [
            "invalidCertificateChain", "invalidDeviceVerification", "invalidEncoding", "invalidSignature",
            "missingRequiredProperties", "revokedCertificate",
        ].map { SimulatedError(domain: .verificationError, name: $0, code: nil) }
        + ["duplicateRequest", "failed"].map { SimulatedError(domain: .refundRequestError, name: $0, code: nil) }

    /// `SKError.Code` by raw value (StoreKit's SKError.h).
    private static let skErrorNames = [
        "unknown", "clientInvalid", "paymentCancelled", "paymentInvalid", "paymentNotAllowed",
        "storeProductNotAvailable", "cloudServicePermissionDenied", "cloudServiceNetworkConnectionFailed",
        "cloudServiceRevoked", "privacyAcknowledgementRequired", "unauthorizedRequestData", "invalidOfferIdentifier",
        "invalidSignature", "missingOfferParams", "invalidOfferPrice", "overlayCancelled",
        "overlayInvalidConfiguration",
        "overlayTimeout", "ineligibleForOffer", "unsupportedPlatform", "overlayPresentedInBackgroundScene",
    ]

    /// `SKError.unknown` (0), `.paymentCancelled` (2), `.paymentNotAllowed` (4).
    public static let unknown = named("SKError.unknown")!
    public static let paymentCancelled = named("SKError.paymentCancelled")!
    public static let paymentNotAllowed = named("SKError.paymentNotAllowed")!

    /// Looks up `unknown`, `SKError.paymentInvalid`, `StoreKitError.networkError`, or an
    /// `SKError` code number such as `7`.
    public static func named(_ text: String) -> SimulatedError? {
        if let code = Int(text) { return all.first { $0.domain == .skError && $0.code == code } }
        if let dot = text.lastIndex(of: ".") {
            let domain = String(text[..<dot])
            let name = String(text[text.index(after: dot)...])
            return all.first { $0.domain.rawValue == domain && $0.name == name }
        }
        return all.first { $0.name == text }
    }
}

/// `StoreKitError`'s cases, by name: what a simulated StoreKit 2 error is, typed, so a
/// misspelt one does not compile, and each API maps them with one exhaustive switch.
public enum StoreKitErrorName: String, CaseIterable, Sendable {
    case unknown, userCancelled, networkError, systemError, notAvailableInStorefront, notEntitled, unsupported
}

/// `Product.PurchaseError`'s cases, by name (Apple, "Product.PurchaseError"): why the App
/// Store refuses a purchase's request, typed as `StoreKitErrorName` is.
public enum PurchaseErrorName: String, CaseIterable, Sendable {
    case invalidQuantity, productUnavailable, purchaseNotAllowed, ineligibleForOffer, invalidOfferIdentifier
    case invalidOfferPrice, invalidOfferSignature, missingOfferParameters
}

extension SimulatedError {
    /// `Product.PurchaseError.<name>`.
    public static func purchase(_ name: PurchaseErrorName) -> SimulatedError {
        SimulatedError(domain: .purchaseError, name: name.rawValue, code: nil)
    }

    /// `StoreKitError.<name>`.
    public static func storeKit(_ name: StoreKitErrorName) -> SimulatedError {
        SimulatedError(domain: .storeKitError, name: name.rawValue, code: nil)
    }

    /// The `Product.PurchaseError` this is, if it is one.
    public var purchaseErrorName: PurchaseErrorName? {
        domain == .purchaseError ? PurchaseErrorName(rawValue: name) : nil
    }

    /// The `StoreKitError` this is, if it is one.
    public var storeKitErrorName: StoreKitErrorName? {
        domain == .storeKitError ? StoreKitErrorName(rawValue: name) : nil
    }
}
