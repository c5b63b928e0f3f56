/// What happens to the account on its own, as time passes or the app launches, which a front
/// end tells the user about beside the result of the command that saw it.
public enum StoreEvent: Sendable, Equatable {
    /// An Ask to Buy request nobody answered within 24 hours expired: it ended declined,
    /// and nothing was charged. The app hears nothing (Apple, "Testing Ask to Buy").
    case askToBuyExpired(PendingPurchase)
    /// `Transaction.updates` delivered a transaction made outside the app while it was not
    /// running: an interrupted purchase completed once its issue was resolved, or a purchase
    /// made on another device or in the App Store (`SKTestSession.buyProduct(identifier:)`).
    case delivered(Transaction)
    /// The account's storefront changed, as `Storefront.updates` and StoreKit 1's
    /// `paymentQueueDidChangeStorefront(_:)` report it: ISO 3166-1 alpha-3 codes.
    case storefrontChanged(from: String, to: String)
    /// Data was signed for Production while the session has no `app-apple-id`: Apple's
    /// Production verifier is made with the app's Apple ID, and rejects a notification or an
    /// app transaction that does not carry it (`SignedDataVerifier` in Apple's
    /// app-store-server-library; Apple, "appAppleId").
    case productionWithoutAppAppleID
}
