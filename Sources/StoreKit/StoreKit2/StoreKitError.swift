import Foundation
import IAPSimKit

/// StoreKit 2's `StoreKitError`.
public enum StoreKitError: Error, LocalizedError, Sendable {
    case unknown
    case userCancelled
    case networkError(URLError)
    case systemError(any Error)
    case notAvailableInStorefront
    case notEntitled
    case unsupported

    public var errorDescription: String? {
        switch self {
        case .unknown: "An unknown error occurred."
        case .userCancelled: "The user cancelled."
        case .networkError(let error): "A network error occurred: \(error.localizedDescription)"
        case .systemError(let error): "A system error occurred: \(error.localizedDescription)"
        case .notAvailableInStorefront: "The product is not available in this storefront."
        case .notEntitled: "The app is not entitled to this."
        case .unsupported: "This is not supported."
        }
    }
}

extension Product {
    /// `Product.PurchaseError`: why a purchase was refused before it began.
    public enum PurchaseError: Error, LocalizedError, Equatable, Hashable, Sendable {
        case invalidQuantity
        case productUnavailable
        case purchaseNotAllowed
        case ineligibleForOffer
        case invalidOfferIdentifier
        case invalidOfferPrice
        case invalidOfferSignature
        case missingOfferParameters

        public var errorDescription: String? {
            switch self {
            case .invalidQuantity: "The quantity is not valid."
            case .productUnavailable: "The product is not available."
            case .purchaseNotAllowed: "This device is not allowed to make purchases."
            case .ineligibleForOffer: "The account is not eligible for the offer."
            case .invalidOfferIdentifier: "The offer identifier is not valid."
            case .invalidOfferPrice: "The offer price is not valid."
            case .invalidOfferSignature: "The offer signature is not valid."
            case .missingOfferParameters: "The offer parameters are missing."
            }
        }
    }
}

/// The errors iapsim's simulated errors and refusals stand for, as StoreKit 2 throws them.
enum StoreKit2Errors {
    static func error(_ simulated: SimulatedError) -> any Error {
        switch simulated.domain {
        case .purchaseError:
            switch simulated.purchaseErrorName {
            case .invalidQuantity?: return Product.PurchaseError.invalidQuantity
            case .productUnavailable?: return Product.PurchaseError.productUnavailable
            case .purchaseNotAllowed?: return Product.PurchaseError.purchaseNotAllowed
            case .ineligibleForOffer?: return Product.PurchaseError.ineligibleForOffer
            case .invalidOfferIdentifier?: return Product.PurchaseError.invalidOfferIdentifier
            case .invalidOfferPrice?: return Product.PurchaseError.invalidOfferPrice
            case .invalidOfferSignature?: return Product.PurchaseError.invalidOfferSignature
            case .missingOfferParameters?, nil: return Product.PurchaseError.missingOfferParameters
            }
        case .storeKitError:
            switch simulated.storeKitErrorName {
            case .userCancelled?: return StoreKitError.userCancelled
            case .networkError?: return StoreKitError.networkError(URLError(.notConnectedToInternet))
            case .systemError?: return StoreKitError.systemError(SKError(.unknown))
            case .notAvailableInStorefront?: return StoreKitError.notAvailableInStorefront
            case .notEntitled?: return StoreKitError.notEntitled
            case .unsupported?: return StoreKitError.unsupported
            case .unknown?, nil: return StoreKitError.unknown
            }
        case .skError:
            return SKError(SKError.Code(rawValue: simulated.code ?? 0) ?? .unknown)
        case .verificationError:
            return Verifier.verificationError(simulated) as VerificationResult<Transaction>.VerificationError
        case .refundRequestError:
            return StoreKitError.unknown
        }
    }

    /// A library error as StoreKit 2 throws it: a simulated one as itself, the rest as
    /// `StoreKitError.systemError` carrying iapsim's message.
    static func map(_ error: any Error) -> any Error {
        if case SimulationError.simulated(_, let simulated) = error { return self.error(simulated) }
        if let refusal = error as? IAPSimKit.PurchaseError { return self.error(refusal.storeKitError) }
        if error is StoreKitError || error is Product.PurchaseError || error is SKError { return error }
        return StoreKitError.systemError(error)
    }
}

extension Transaction {
    /// `Transaction.RefundRequestError`.
    public enum RefundRequestError: Error, Equatable, Hashable, Sendable {
        case duplicateRequest
        case failed
    }
}
