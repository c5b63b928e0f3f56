import Foundation
import IAPSimKit

extension Product {
    /// `Product.PurchaseResult`.
    public enum PurchaseResult: Equatable, Hashable, Sendable {
        case success(VerificationResult<Transaction>)
        case userCancelled
        /// Ask to Buy, or an action the buyer must take first: the transaction, if it
        /// completes, arrives through `Transaction.updates`.
        case pending
    }

    /// `Product.PurchaseOption`: what a purchase is made with.
    public struct PurchaseOption: Equatable, Hashable, Sendable {
        enum Kind: Equatable, Hashable, Sendable {
            case appAccountToken(UUID)
            case quantity(Int)
            case promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int)
            case winBackOffer(String?)
            case simulatesAskToBuy(Bool)
            case custom(String)
        }

        let kind: Kind

        public static func appAccountToken(_ token: UUID) -> PurchaseOption { .init(kind: .appAccountToken(token)) }
        public static func quantity(_ quantity: Int) -> PurchaseOption { .init(kind: .quantity(quantity)) }
        public static func promotionalOffer(
            offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int
        ) -> PurchaseOption {
            .init(
                kind: .promotionalOffer(
                    offerID: offerID, keyID: keyID, nonce: nonce, signature: signature, timestamp: timestamp))
        }
        public static func winBackOffer(_ offer: Product.SubscriptionOffer) -> PurchaseOption {
            .init(kind: .winBackOffer(offer.id))
        }
        public static func simulatesAskToBuyInSandbox(_ simulatesAskToBuy: Bool) -> PurchaseOption {
            .init(kind: .simulatesAskToBuy(simulatesAskToBuy))
        }
        public static func custom(key: String, value: String) -> PurchaseOption { .init(kind: .custom(key)) }
        public static func custom(key: String, value: Double) -> PurchaseOption { .init(kind: .custom(key)) }
        public static func custom(key: String, value: Bool) -> PurchaseOption { .init(kind: .custom(key)) }
        public static func custom(key: String, value: Data) -> PurchaseOption { .init(kind: .custom(key)) }
    }

    /// Buys the product: `iapsim buy`'s operation (`quote`, then `purchase`), under the
    /// session's settings (Ask to Buy, interrupted purchases, a simulated Purchase error).
    /// - Throws: `Product.PurchaseError`, `StoreKitError` or `SKError` as the session or the
    ///   store decides.
    public func purchase(options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        do {
            return try Self.purchase(id, options: options)
        } catch {
            throw StoreKit2Errors.map(error)
        }
    }

    static func purchase(_ id: String, options: Set<Product.PurchaseOption>) throws -> Product.PurchaseResult {
        var purchase = StoreKitPurchase(productID: id)
        for option in options {
            switch option.kind {
            case .quantity(let value): purchase.quantity = value
            case .appAccountToken(let value): purchase.appAccountToken = value
            case .simulatesAskToBuy(let value): purchase.simulatesAskToBuy = value
            case .winBackOffer(let offerID):
                guard let offerID else { throw Product.PurchaseError.invalidOfferIdentifier }
                purchase.offer = .winBack(id: offerID)
            case .promotionalOffer(let offerID, let keyID, let nonce, let signature, let timestamp):
                purchase.offer = .promotional(
                    id: offerID, keyID: keyID, nonce: nonce, timestamp: Int64(timestamp),
                    signature: signature.base64EncodedString())
            case .custom: break
            }
        }
        let request: PurchaseRequest
        do {
            request = try PurchaseRequest(purchase)
        } catch {
            throw Product.PurchaseError.invalidQuantity
        }
        let runtime = StoreRuntime.shared
        let (signer, receipt, settings) = try runtime.withStore { catalog, session in
            let signer = try runtime.signer()
            let (receipt, settings) = try TransactionWatcher.shared.purchasing {
                let quote = try session.quote(request, in: catalog)
                let receipt = try session.purchase(quote, in: catalog)
                return ((receipt, quote.settings), receipt.result.transaction.map { [$0] } ?? [])
            }
            return (signer, receipt, settings)
        }
        func success(_ transaction: IAPSimKit.Transaction) -> Product.PurchaseResult {
            let context = SigningContext(
                bundleID: settings.bundleID, appAppleID: settings.appAppleID,
                environment: signer.environment ?? settings.environment, signedDate: receipt.storeKitContext.signedDate,
                appTransactionID: receipt.storeKitContext.appTransactionID)
            let result = Verifier.result(transaction, context: context, signer: signer)
            if let error = receipt.verificationError {
                return .success(.unverified(result.unsafePayloadValue, Verifier.verificationError(error)))
            }
            return .success(result)
        }
        switch receipt.result {
        case .purchased(let transaction), .redownloaded(let transaction), .alreadySubscribed(let transaction):
            return success(transaction)
        case .downgradeScheduled(let current, _), .offerScheduled(let current, _):
            return success(current)
        case .pending, .requestRepeated, .interrupted:
            return .pending
        case .cancelled:
            return .userCancelled
        case .failed(let error):
            if error.kind == .cancelled { return .userCancelled }
            throw StoreKit2Errors.error(error)
        }
    }
}
