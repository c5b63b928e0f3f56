import Foundation

/// The simulator's side of the state: what StoreKit Test keeps for a test session.
public struct SimulationState: Sendable, Equatable {
    /// `iapsim settings set` overrides, each a typed value; keys not set use the catalog's or
    /// iapsim's default.
    public var settings: SettingOverrides
    /// Nil until first used: then the real clock.
    public var clock: SimulatedClock?
    /// Purchases waiting for Ask to Buy approval or an interrupted purchase to be resolved.
    /// At most one Ask to Buy request per product.
    public var pending: [PendingPurchase]
    /// Ask to Buy requests nobody answered within `PendingPurchase.askToBuyLifetime`: they
    /// ended declined, and are kept to be shown until the transactions are reset.
    public var expiredRequests: [PendingPurchase]
    /// Transactions made outside the app — an interrupted purchase completed once its issue
    /// was resolved — that `Transaction.updates` has not delivered yet: the app's next launch
    /// does, and says so.
    public var undeliveredTransactionIDs: [UInt64]
    /// Transactions the app has not finished (`Transaction.unfinished`), by id, oldest first.
    public var unfinishedTransactionIDs: [UInt64]
    /// Consumables bought while transactions arrived unverified: the app granted nothing.
    /// Once verification passes, the app finishing one (`finish`) is the app granting it
    /// at last, as an app does when `Transaction.updates` re-delivers it verified.
    public var ungrantedTransactionIDs: [UInt64] = []
    /// Each auto-renewable subscription's renewal state, by its chain's `originalID`.
    public var renewals: [RenewalInfo]
    /// Refunds the customer asked for that the App Store has not decided, oldest first; one
    /// per transaction at most.
    public var refundRequests: [RefundRequest] = []
    /// The nonces of the promotional offer signatures redeemed, each with its signature's
    /// timestamp: a nonce is used once (Apple, "Generating a signature for promotional
    /// offers"). Kept while a signature with that timestamp could still be accepted, so the
    /// list stays short. Absent in older files: none.
    public var usedOfferNonces: [OfferNonce] = []

    /// A promotional offer signature's nonce, once redeemed.
    public struct OfferNonce: Sendable, Equatable {
        /// The lowercase UUID.
        public var nonce: String
        /// The signature's timestamp, in milliseconds since 1970.
        public var timestamp: Int64

        public init(nonce: String, timestamp: Int64) {
            self.nonce = nonce
            self.timestamp = timestamp
        }
    }

    public init() {
        settings = SettingOverrides()
        clock = nil
        pending = []
        expiredRequests = []
        undeliveredTransactionIDs = []
        unfinishedTransactionIDs = []
        renewals = []
    }
}
