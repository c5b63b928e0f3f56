import Foundation

/// The simulator's side of the state: what StoreKit Test keeps for a test session.
public struct SimulationState: Sendable, Equatable {
    /// `iapsim settings set` overrides, by key, each value in its key's canonical form; absent
    /// keys use the catalog's or iapsim's default.
    public var settings: [SettingKey: String]
    /// Nil until first used: then the real clock.
    public var clock: SimulatedClock?
    /// Purchases waiting for Ask to Buy approval or an interrupted purchase to be resolved.
    public var pending: [PendingPurchase]
    /// Transactions the app has not finished (`Transaction.unfinished`), by id, oldest first.
    public var unfinishedTransactionIDs: [UInt64]
    /// Each auto-renewable subscription's renewal state, by its chain's `originalID`.
    public var renewals: [RenewalInfo]

    public init() {
        settings = [:]
        clock = nil
        pending = []
        unfinishedTransactionIDs = []
        renewals = []
    }
}
