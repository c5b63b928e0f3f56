import Foundation

/// What the index knows of a transaction without reading its journal line: enough to filter,
/// sort and lay out a history, and to say which lines to read.
public struct TransactionSummary: Sendable, Equatable {
    public var id: UInt64
    public var originalID: UInt64
    public var productID: String
    public var productType: ProductType
    public var subscriptionGroupID: String?
    public var purchaseDate: Date
    public var expirationDate: Date?
    public var revocationDate: Date?
    public var isUpgraded: Bool
    public var reason: Transaction.Reason
    public var ownershipType: Transaction.OwnershipType
    /// Where the journal line of its latest version starts: later changes, later lines.
    public var modification: UInt64

    /// This transaction's state at `date`, as `Transaction.state(at:)` gives it.
    public func state(at date: Date) -> TransactionState {
        if revocationDate != nil { return .revoked }
        if isUpgraded { return .upgraded }
        if let end = expirationDate, end <= date { return .expired }
        return .purchased
    }

    init(_ record: TransactionIndex.Record, names: [String]) throws(IndexDamage) {
        guard Int(record.productKey) < names.count, record.groupKey.map({ Int($0) < names.count }) ?? true else {
            throw IndexDamage(detail: "record \(record.id) names no product")
        }
        id = record.id
        originalID = record.originalID
        productID = names[Int(record.productKey)]
        productType = record.productType
        subscriptionGroupID = record.groupKey.map { names[Int($0)] }
        purchaseDate = record.purchaseDate
        expirationDate = record.expirationDate
        revocationDate = record.revocationDate
        isUpgraded = record.isUpgraded
        reason = record.isRenewal ? .renewal : .purchase
        ownershipType = record.isFamilyShared ? .familyShared : .purchased
        modification = record.offset
    }
}
