import Foundation

/// The domain of StoreKit 1's errors (`SKErrorDomain`), by Apple's name.
// swift-format-ignore: AlwaysUseLowerCamelCase
public let SKErrorDomain = "SKErrorDomain"

/// StoreKit 1's `SKError`, with Apple's codes and numbers (SKError.h).
public struct SKError: Error, CustomNSError, LocalizedError, Hashable, Sendable {
    public enum Code: Int, Hashable, Sendable {
        case unknown = 0
        case clientInvalid = 1
        case paymentCancelled = 2
        case paymentInvalid = 3
        case paymentNotAllowed = 4
        case storeProductNotAvailable = 5
        case cloudServicePermissionDenied = 6
        case cloudServiceNetworkConnectionFailed = 7
        case cloudServiceRevoked = 8
        case privacyAcknowledgementRequired = 9
        case unauthorizedRequestData = 10
        case invalidOfferIdentifier = 11
        case invalidSignature = 12
        case missingOfferParams = 13
        case invalidOfferPrice = 14
        case overlayCancelled = 15
        case overlayInvalidConfiguration = 16
        case overlayTimeout = 17
        case ineligibleForOffer = 18
        case unsupportedPlatform = 19
        case overlayPresentedInBackgroundScene = 20
        case paymentMethodBindingConfigurationRequired = 21
    }

    public let code: Code
    let message: String?

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.message = userInfo[NSLocalizedDescriptionKey] as? String
    }

    /// The error an `NSError` of `SKErrorDomain` bridges to, as Apple's `_BridgedStoredNSError`
    /// makes one (`SKError(_nsError: error as NSError)`); a code Apple added later, or an
    /// error of another domain, is `.unknown` with the error's description.
    public init(_nsError error: NSError) {
        let code = error.domain == SKErrorDomain ? Code(rawValue: error.code) : nil
        self.code = code ?? .unknown
        self.message = error.userInfo[NSLocalizedDescriptionKey] as? String
    }

    /// The bridged `NSError`, as Apple's `SKError` keeps it.
    public var _nsError: NSError { NSError(domain: SKErrorDomain, code: code.rawValue, userInfo: errorUserInfo) }

    public static var errorDomain: String { SKErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: errorDescription ?? ""]
    }

    public var errorDescription: String? {
        if let message { return message }
        switch code {
        case .unknown: return "An unknown error occurred"
        case .clientInvalid: return "The client is not allowed to make the request"
        case .paymentCancelled: return "The user cancelled the payment"
        case .paymentInvalid: return "The payment is not valid"
        case .paymentNotAllowed: return "This device is not allowed to make the payment"
        case .storeProductNotAvailable: return "The product is not available in the current storefront"
        case .ineligibleForOffer: return "The user is not eligible for the offer"
        case .invalidOfferIdentifier: return "The offer identifier is not valid"
        case .invalidSignature: return "The offer signature is not valid"
        case .missingOfferParams: return "The offer parameters are missing"
        case .invalidOfferPrice: return "The offer price is not valid"
        default: return "StoreKit error \(code.rawValue)"
        }
    }

    public static func == (lhs: SKError, rhs: SKError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var unknown: Code { .unknown }
    public static var clientInvalid: Code { .clientInvalid }
    public static var paymentCancelled: Code { .paymentCancelled }
    public static var paymentInvalid: Code { .paymentInvalid }
    public static var paymentNotAllowed: Code { .paymentNotAllowed }
    public static var storeProductNotAvailable: Code { .storeProductNotAvailable }
    public static var cloudServicePermissionDenied: Code { .cloudServicePermissionDenied }
    public static var cloudServiceNetworkConnectionFailed: Code { .cloudServiceNetworkConnectionFailed }
    public static var cloudServiceRevoked: Code { .cloudServiceRevoked }
    public static var privacyAcknowledgementRequired: Code { .privacyAcknowledgementRequired }
    public static var unauthorizedRequestData: Code { .unauthorizedRequestData }
    public static var invalidOfferIdentifier: Code { .invalidOfferIdentifier }
    public static var invalidSignature: Code { .invalidSignature }
    public static var missingOfferParams: Code { .missingOfferParams }
    public static var invalidOfferPrice: Code { .invalidOfferPrice }
    public static var ineligibleForOffer: Code { .ineligibleForOffer }
    public static var unsupportedPlatform: Code { .unsupportedPlatform }
}

extension SKError.Code {
    /// Lets `catch SKError.paymentCancelled { … }` match a thrown `SKError` of that code, as
    /// Foundation's pattern for bridged error codes does on Apple's platforms.
    public static func ~= (code: SKError.Code, error: any Error) -> Bool { (error as? SKError)?.code == code }
}
