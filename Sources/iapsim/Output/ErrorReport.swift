import Foundation
import IAPSimKit

/// Maps every error to its documented exit code and its one-line message for stderr.
enum ErrorReport {
    static func describe(_ error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as UsageError:
            return (.usage, error.line)
        case let error as CatalogError:
            switch error {
            case .noCatalog, .fileNotFound, .unreadable, .severalStoreKitFiles: return (.noInput, line(error))
            default: return (.dataError, line(error))
            }
        case let error as StateError:
            switch error {
            case .corrupt, .newerSchema, .rejectedIntent: return (.dataError, line(error))
            case .unwritable: return (.internalError, line(error))
            case .cannotCreate, .noStateDirectory: return (.cannotCreate, line(error))
            case .unreadable: return (.noInput, line(error))
            case .io: return (.ioError, line(error))
            case .busy: return (.busy, line(error))
            case .invalidLockTimeout, .invalidAccountName, .unknownAccount, .permanentAccount, .accountNameTaken:
                return (.usage, line(error))
            }
        case let error as DeliveryError:
            switch error {
            case .anotherDeliverer: return (.busy, line(error))
            case .cannotRecord: return (.ioError, line(error))
            }
        case let error as PurchaseError:
            switch error {
            case .productNotAvailable, .productNotRequested, .notAvailableInStorefront, .notFamilyShareable:
                return (.notAvailable, line(error))
            case .invalidQuantity, .noMonthlyBillingPlan, .billingPlanNotApplicable: return (.usage, line(error))
            }
        case let error as PurchaseRequestError:
            return (.usage, line(error))
        case let error as SimulationError:
            if case .simulated(_, let simulated) = error { return (exitCode(for: simulated), line(error)) }
            return (.usage, line(error))
        case let error as OfferSignatureError:
            // The developer's side: a catalog or offer that cannot be signed for, as before a usage error.
            return (.usage, line(error))
        case let error as SigningError:
            return (.dataError, line(error))
        case let error as ReceiptError:
            return (.dataError, line(error))
        case let error as SettingsError:
            return (.usage, line(error))
        case let error as ClockError:
            return (.usage, line(error))
        default:
            // Not an error iapsim expects: a bug, reported as one rather than as bad input.
            return (.internalError, "Error: internal error: \(error)")
        }
    }

    /// The exit status of a simulated StoreKit error, by what it means to a script.
    static func exitCode(for error: SimulatedError) -> ExitCode {
        switch error.kind {
        case .cancelled: .cancelled
        case .notAllowed: .notAllowed
        case .notAvailable: .notAvailable
        case .failed: .purchaseFailed
        }
    }

    private static func line(_ error: any LocalizedError) -> String {
        let text = error.errorDescription ?? "\(error)"
        return "Error: " + text.replacingOccurrences(of: "\n", with: " ")
    }
}
