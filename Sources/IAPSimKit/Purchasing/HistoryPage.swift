import Foundation

/// What the App Store Server API's Get Transaction History (v2) asks for: which transactions,
/// in which order, from where. Every filter is optional; with none, the whole history.
public struct HistoryQuery: Sendable, Equatable {
    /// `sort`: by when the transaction was last changed — bought, renewed, refunded, upgraded
    /// — oldest change first, or newest (Apple, "Get Transaction History": the response
    /// "sorts the transaction records by their recently modified date").
    public enum Sort: String, Sendable {
        case ascending = "ASCENDING"
        case descending = "DESCENDING"
    }

    /// `startDate`: purchased at or after it.
    public var startDate: Date?
    /// `endDate`: purchased before it.
    public var endDate: Date?
    /// `productId`: any of these; all when empty.
    public var productIDs: [String]
    /// `productType`: any of these; all when empty.
    public var productTypes: [ProductType]
    /// `subscriptionGroupIdentifier`: any of these; all when empty.
    public var subscriptionGroupIDs: [String]
    /// `revoked`: only refunded and revoked transactions (true), only the others (false).
    public var revoked: Bool?
    /// `inAppOwnershipType`: the buyer's own purchases, or those a family organiser shares.
    public var ownership: Transaction.OwnershipType?
    public var sort: Sort
    /// The `revision` of the previous page, or of the last page of an earlier sync; nil for
    /// the first.
    public var revision: String?
    /// Get Transaction History V1: leaves out consumables the app finished, unless refunded
    /// or revoked (Apple, "Get Transaction History V1").
    public var excludesFinishedConsumables = false

    public init(
        startDate: Date? = nil, endDate: Date? = nil, productIDs: [String] = [], productTypes: [ProductType] = [],
        subscriptionGroupIDs: [String] = [], revoked: Bool? = nil, ownership: Transaction.OwnershipType? = nil,
        sort: Sort = .ascending, revision: String? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIDs = productIDs
        self.productTypes = productTypes
        self.subscriptionGroupIDs = subscriptionGroupIDs
        self.revoked = revoked
        self.ownership = ownership
        self.sort = sort
        self.revision = revision
    }
}

/// What the endpoints that take "any transaction id" are given (Apple, "anyTransactionId": "an
/// original transaction ID, transaction ID, or app transaction ID" of the customer).
public enum AnyTransactionID: Sendable, Equatable {
    /// A transaction's identifier, or an original transaction's.
    case transaction(UInt64)
    /// The customer's `appTransactionId`, which names the account even with no purchase.
    case appTransaction(String)
}

/// One page of a history: up to `StoreSession.historyPageSize` transactions, each in its
/// latest version, and where the next page starts.
public struct HistoryPage: Sendable, Equatable {
    public var transactions: [Transaction]
    /// Pass it back for the next page. It names the position after this page's last
    /// transaction, not a count, so it stays valid while transactions are added or change:
    /// in ascending order, whatever changes after it — a new purchase, a refund of an old one
    /// — appears on later pages, so the last page's revision resumes a sync.
    public var revision: String
    /// Whether a next page has transactions.
    public var hasMore: Bool
}

/// Why a history page was not given.
public enum HistoryQueryError: Error, Equatable, Sendable {
    /// A `revision` this iapsim did not give, or one given for the other sort order.
    case invalidRevision(String)
    /// `endDate` is not after `startDate`.
    case invalidDateRange
}

extension HistoryQueryError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .invalidRevision(let revision): "\(revision): not a revision of this history and sort order"
        case .invalidDateRange: "the end date is not after the start date"
        }
    }
}

extension StoreSession {
    /// Transactions a page holds, as the App Store Server API gives them.
    public static let historyPageSize = 20

    /// Get Transaction History (v2, and V1 with `excludesFinishedConsumables`): a page of the
    /// history of the account that holds `transactionID`, filtered and sorted as `query` asks,
    /// for the HTTP front end.
    ///
    /// iapsim keeps one account, so the history is every transaction in the state; the
    /// identifier only has to name one of them. The filters are judged on the index, so only
    /// the page's journal lines are read. Without `productIDs`, records are walked in the
    /// page's order from its start (`StateStore.forEachSummaryByModification`), so a page
    /// costs about the same at any history size (with filters that few transactions pass,
    /// more are looked at); with them, each product's records are looked at once.
    /// - Returns: up to 20 transactions, the `revision` for the next page, and `hasMore`.
    /// - Throws: `SimulationError.unknownTransaction`, `HistoryQueryError`, `StateError`.
    public func historyPage(transactionID: UInt64, query: HistoryQuery = HistoryQuery()) throws -> HistoryPage {
        try historyPage(.transaction(transactionID), query: query)
    }

    /// `historyPage(transactionID:query:)` for the customer any transaction identifier names,
    /// their `appTransactionId` included.
    /// - Throws: `SimulationError.unknownTransaction` for an identifier the account does not
    ///   have, `HistoryQueryError`, `StateError`.
    public func historyPage(_ customer: AnyTransactionID, query: HistoryQuery = HistoryQuery()) throws -> HistoryPage {
        if let start = query.startDate, let end = query.endDate, end <= start {
            throw HistoryQueryError.invalidDateRange
        }
        let order: PageCursor.Order = query.sort == .ascending ? .modifiedAscending : .modifiedDescending
        let after = try query.revision.map { try PageCursor(revision: $0, order: order) }
        let state = try requireCustomer(customer)
        let unfinished = query.excludesFinishedConsumables ? Set(state.simulation.unfinishedTransactionIDs) : []
        let productTypes = Set(query.productTypes)
        let groups = Set(query.subscriptionGroupIDs)
        var page = PageSelection(order: order, after: after)
        let consider = { (summary: TransactionSummary) in
            if let start = query.startDate, summary.purchaseDate < start { return }
            if let end = query.endDate, summary.purchaseDate >= end { return }
            if !productTypes.isEmpty, !productTypes.contains(summary.productType) { return }
            if !groups.isEmpty, !groups.contains(summary.subscriptionGroupID ?? "") { return }
            if let revoked = query.revoked, (summary.revocationDate != nil) != revoked { return }
            if let ownership = query.ownership,
                summary.ownershipType != ownership
            {
                return
            }
            if query.excludesFinishedConsumables, summary.productType == .consumable, summary.revocationDate == nil,
                !unfinished.contains(summary.id)
            {
                return
            }
            page.consider(summary)
        }
        if query.productIDs.isEmpty {
            // In the page's order from its start: done once a page and one more are chosen.
            try store.forEachSummaryByModification(descending: query.sort == .descending, after: after?.offset) {
                summary in
                consider(summary)
                return page.chosen.count <= StoreSession.historyPageSize
            }
        } else {
            for productID in Set(query.productIDs) {
                try store.forEachSummary(productID: productID) { summary in
                    consider(summary)
                    return true
                }
            }
        }
        return try page.result(store)
    }

    /// Get Refund History (v2): a page of the refunded and revoked transactions of the account
    /// that holds `transactionID`, the latest revocation first, for the HTTP front end.
    /// - Parameter revision: the previous page's `revision`; nil for the first.
    /// - Throws: `SimulationError.unknownTransaction`, `HistoryQueryError.invalidRevision`, `StateError`.
    public func refundHistoryPage(transactionID: UInt64, revision: String? = nil) throws -> HistoryPage {
        try refundHistoryPage(.transaction(transactionID), revision: revision)
    }

    /// `refundHistoryPage(transactionID:revision:)` for the customer any transaction identifier
    /// names, their `appTransactionId` included.
    public func refundHistoryPage(_ customer: AnyTransactionID, revision: String? = nil) throws -> HistoryPage {
        let after = try revision.map { try PageCursor(revision: $0, order: .revokedDescending) }
        try requireCustomer(customer)
        var page = PageSelection(order: .revokedDescending, after: after)
        try store.forEachSummary { summary in
            if summary.revocationDate != nil { page.consider(summary) }
            return true
        }
        return try page.result(store)
    }

    /// Look Up Order ID: the transactions of the charge `orderID` names (`Transaction.orderID`:
    /// a purchase, or a renewal), in their latest version; empty when the account has none.
    public func transactions(orderID: String) throws -> [Transaction] {
        guard let id = OrderID.transactionID(orderID) else { return [] }
        guard try snapshot().state.hasTransaction(id), let transaction = try store.transaction(id) else { return [] }
        return [transaction]
    }

    /// Whether `text` is the account's `appTransactionId` (one per account and app, given
    /// on first use). Read from the snapshot, without the lock.
    public func isAppTransactionID(_ text: String) throws -> Bool {
        guard let id = try store.snapshotView().account.appTransactionID else { return false }
        return id == text
    }

    /// Brings time up to date (and checks the index) under the lock, then makes sure
    /// `customer` names this account: a transaction it has, or its `appTransactionId`.
    /// - Returns: the state brought up to date.
    @discardableResult
    private func requireCustomer(_ customer: AnyTransactionID) throws -> PurchaseState {
        let state = try snapshot().state
        switch customer {
        case .transaction(let id):
            var found = false
            try store.forEachSummary(ids: [id]) { _ in found = true }
            guard found else { throw SimulationError.unknownTransaction(id: id) }
        case .appTransaction(let id):
            guard state.account.appTransactionID == id else { throw SimulationError.unknownTransaction(id: 0) }
        }
        return state
    }
}

/// Where a page starts: the sort key of the last transaction handed over, which a `revision`
/// spells out.
struct PageCursor: Equatable {
    enum Order: UInt8 {
        // 1 and 2 were purchase-date orders, before Apple's order by modification: their
        // revisions are refused as any other that is not one of these.
        case revokedDescending = 3
        case modifiedAscending = 4
        case modifiedDescending = 5
    }

    var order: Order
    /// The date or journal offset the order sorts by, and the identifier after it; nil
    /// before the first.
    var key: Key?

    struct Key: Equatable {
        var major: Double
        var id: UInt64
    }

    /// For the modification orders: the journal offset of the last change handed over.
    var offset: UInt64? { key.map { UInt64($0.major) } }

    init(order: Order, key: Key?) {
        self.order = order
        self.key = key
    }

    /// `r1.<order>.<date bits, hex>.<id>` (refunds), `r1.<order>.<journal offset>.<id>`
    /// (history), or `r1.<order>.start` before the first.
    var revision: String {
        guard let key else { return "r1.\(order.rawValue).start" }
        let major =
            order == .revokedDescending ? String(key.major.bitPattern, radix: 16) : String(UInt64(key.major))
        return "r1.\(order.rawValue).\(major).\(key.id)"
    }

    init(revision: String, order: Order) throws(HistoryQueryError) {
        let parts = revision.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "r1", UInt8(parts[1]) == order.rawValue else {
            throw .invalidRevision(revision)
        }
        self.order = order
        if parts.count == 3, parts[2] == "start" {
            key = nil
            return
        }
        guard parts.count == 4, let id = UInt64(parts[3]) else { throw .invalidRevision(revision) }
        let major: Double
        if order == .revokedDescending {
            guard let bits = UInt64(parts[2], radix: 16), Double(bitPattern: bits).isFinite else {
                throw .invalidRevision(revision)
            }
            major = Double(bitPattern: bits)
        } else {
            // Offsets below 2⁵³, which a Double holds exactly (no journal is that long).
            guard let offset = UInt64(parts[2]), offset < 1 << 53 else { throw .invalidRevision(revision) }
            major = Double(offset)
        }
        key = Key(major: major, id: id)
    }

    /// Where `summary` sorts: by the order's date or journal offset, then by identifier.
    static func key(_ summary: TransactionSummary, _ order: Order) -> (Double, UInt64) {
        switch order {
        case .revokedDescending:
            ((summary.revocationDate ?? summary.purchaseDate).timeIntervalSince1970, summary.id)
        case .modifiedAscending, .modifiedDescending: (Double(summary.modification), summary.id)
        }
    }

    /// Whether `a` comes before `b` in `order`.
    static func precedes(_ a: (Double, UInt64), _ b: (Double, UInt64), in order: Order) -> Bool {
        order == .modifiedAscending ? a < b : a > b
    }
}

/// The first `StoreSession.historyPageSize` transactions past a cursor, chosen in one pass
/// with one more kept, to tell whether there are more.
struct PageSelection {
    let order: PageCursor.Order
    let after: PageCursor?
    /// Sorted in `order`; at most one more than a page.
    private(set) var chosen: [TransactionSummary] = []

    init(order: PageCursor.Order, after: PageCursor?) {
        self.order = order
        self.after = after
    }

    mutating func consider(_ summary: TransactionSummary) {
        let key = PageCursor.key(summary, order)
        if let cursor = after?.key, !PageCursor.precedes((cursor.major, cursor.id), key, in: order) {
            return  // on an earlier page
        }
        let limit = StoreSession.historyPageSize + 1
        if chosen.count == limit, !PageCursor.precedes(key, PageCursor.key(chosen[limit - 1], order), in: order) {
            return
        }
        let index = chosen.firstIndex { PageCursor.precedes(key, PageCursor.key($0, order), in: order) } ?? chosen.count
        chosen.insert(summary, at: index)
        if chosen.count > limit { chosen.removeLast() }
    }

    /// The page: the chosen transactions read from the journal, and the next revision.
    func result(_ store: StateStore) throws -> HistoryPage {
        let page = Array(chosen.prefix(StoreSession.historyPageSize))
        var transactions: [Transaction] = []
        try store.forEachTransaction(ids: page.map(\.id)) { transactions.append($0) }
        let cursor =
            page.last.map {
                PageCursor(order: order, key: PageCursor.Key(major: PageCursor.key($0, order).0, id: $0.id))
            } ?? after ?? PageCursor(order: order, key: nil)
        return HistoryPage(transactions: transactions, revision: cursor.revision, hasMore: chosen.count > page.count)
    }
}
