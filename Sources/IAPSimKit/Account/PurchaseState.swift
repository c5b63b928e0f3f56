import Foundation

/// Everything iapsim remembers between runs: the account's side and the app's side, as a
/// device and the App Store keep them apart. A reinstall forgets `app`; the account remains.
public struct PurchaseState: Sendable, Equatable {
    /// The version of this layout. A file with a higher one was written by a newer iapsim and
    /// is never overwritten by this one.
    /// 1: every transaction inline. 2: transactions in the journal, the snapshot here.
    /// 3: one Ask to Buy request per product, expired requests and transactions waiting for
    /// `Transaction.updates` kept in `simulation`, deletions in the journal. 4: refund
    /// requests waiting for the App Store's decision in `simulation.refundRequests`, price
    /// increases and redeemed offers in each subscription's renewal info; transactions may
    /// carry `ownershipType` (`familyShared`), `offerPeriod` and `offerID`, pending purchases
    /// an `appAccountToken`; absent, they read as bought by the account, with no offer period,
    /// identifier or token. Files of 1 to 3 are read (see `PurchaseState+JSON`) and written
    /// back as 4.
    /// 5: the store holds customers (`StateLocation`): the app's clock, settings and
    /// notification marks are in `store.json`, and a customer other than `default` has a
    /// `customerNumber`. A schema-4 folder is the customer `default` as it is.
    public static let currentSchemaVersion = 5

    public var schemaVersion: Int
    public var account: Account
    public var app: AppRecord
    /// The test session: settings, clock, pending purchases, renewals. Absent in files
    /// written before the simulation controls; read as empty.
    public var simulation: SimulationState
    /// App Store Server Notifications recorded and delivered (see `Outbox`).
    public var outbox = Outbox()

    public init(
        account: Account = Account(), app: AppRecord = AppRecord(), simulation: SimulationState = SimulationState()
    ) {
        self.schemaVersion = Self.currentSchemaVersion
        self.account = account
        self.app = app
        self.simulation = simulation
    }

    /// A number in the state that cannot grow by what an operation adds: past the largest
    /// value its type holds, so no transaction, count or balance can follow. `StateStore`
    /// reports it as `StateError.corrupt`, naming `field`; nothing is written.
    public struct Overflow: Error, Equatable, Sendable {
        /// Where the number is in `purchases.json`: `account.nextTransactionID`,
        /// `app.consumables.com.example.coins`.
        public var field: String
        public var value: String
        public var increase: String

        public var detail: String { "\(field) is \(value) and cannot grow by \(increase)" }
    }

    /// The next transaction identifier, taken.
    /// - Throws: `Overflow` when the identifiers are used up.
    public mutating func takeTransactionID() throws(Overflow) -> UInt64 {
        let id = account.nextTransactionID
        account.nextTransactionID = try Self.adding(1, to: id, field: "account.nextTransactionID")
        return id
    }

    /// `value + increase`, or `Overflow` naming `field`.
    static func adding<Number: FixedWidthInteger>(_ increase: Number, to value: Number, field: String)
        throws(Overflow) -> Number
    {
        let (sum, overflow) = value.addingReportingOverflow(increase)
        guard !overflow else { throw Overflow(field: field, value: String(value), increase: String(increase)) }
        return sum
    }

    /// Whether `id` names a transaction the account has (not a pending purchase).
    public func hasTransaction(_ id: UInt64) -> Bool {
        id > account.firstIDBase && id < account.nextTransactionID && !simulation.pending.contains { $0.id == id }
    }

    /// The App Store's record of the account. Every transaction ever made is in the journal
    /// (`transactions.jsonl`, see `StateStore`); the snapshot keeps only what purchases,
    /// renewals and status need — the latest transaction of each product — so their cost does
    /// not grow with the history.
    public struct Account: Sendable, Equatable {
        public var nextTransactionID: UInt64
        /// The customer's number in the store: 0 for `default`, else given when the customer was
        /// added. Its transaction identifiers start after `customerNumber × idsPerCustomer`, so
        /// identifiers are unique across the store and each one tells whose it is.
        public var customerNumber: UInt64 = 0
        /// How many identifiers each customer has: a trillion.
        public static let idsPerCustomer: UInt64 = 1_000_000_000_000
        /// The identifiers of this customer are above this one.
        public var firstIDBase: UInt64 { customerNumber &* Self.idsPerCustomer }
        /// The number of the customer a transaction identifier belongs to.
        public static func customerNumber(ofTransaction id: UInt64) -> UInt64 { (id &- 1) / idsPerCustomer }
        /// How many transactions the journal holds.
        public var transactionCount: Int
        /// The latest transaction of each product other than consumables, in the order the
        /// products were first bought. A subscription chain's latest is the newest of these
        /// with its `originalID`.
        public private(set) var current: [Transaction]
        /// The bytes of the journal this snapshot includes.
        public var journalLength: UInt64
        /// `appTransactionId`: the App Store's one identifier for this account and app. Set on
        /// first use; absent in files written before signed data.
        public var appTransactionID: String?
        /// When the app was first used with this account: the app transaction's
        /// `originalPurchaseDate`.
        public var firstUseDate: Date?
        /// Transactions recorded since the state was read — new ones, and new versions of old
        /// ones — for the store to append to the journal. Not part of the snapshot.
        public internal(set) var unsaved: [Transaction] = []

        public init(nextTransactionID: UInt64 = 1) {
            self.nextTransactionID = nextTransactionID
            self.transactionCount = 0
            self.current = []
            self.journalLength = 0
        }

        /// The latest transactions as a snapshot lists them.
        mutating func restore(current: [Transaction]) {
            self.current = current
        }

        /// Records a new transaction, or a new version of one (a refund, an upgrade, an expiry).
        /// A version with a `deletionDate` takes the transaction out of the count and out of
        /// `current`; the caller puts the product's previous transaction back (`reinstate`).
        /// - Throws: `Overflow` when `transactionCount` is at its largest; nothing is recorded.
        public mutating func record(_ transaction: Transaction, isNew: Bool) throws(Overflow) {
            if isNew {
                transactionCount = try PurchaseState.adding(1, to: transactionCount, field: "account.transactionCount")
            }
            unsaved.append(transaction)
            if transaction.deletionDate != nil {
                transactionCount = max(0, transactionCount - 1)
                current.removeAll { $0.id == transaction.id }
                return
            }
            guard transaction.productType != .consumable else { return }
            if let index = current.firstIndex(where: { $0.productID == transaction.productID }) {
                if current[index].id <= transaction.id { current[index] = transaction }
            } else {
                current.append(transaction)
            }
        }

        /// Makes `transaction` the latest of its product again, after a deletion took the newer
        /// one away; a product that already has a latest keeps it.
        mutating func reinstate(_ transaction: Transaction) {
            guard transaction.productType != .consumable, transaction.deletionDate == nil,
                !current.contains(where: { $0.productID == transaction.productID })
            else { return }
            current.append(transaction)
        }

        /// The latest transaction for `productID`, if it is not a consumable.
        public func latest(for productID: String) -> Transaction? {
            current.first { $0.productID == productID }
        }

        /// The transaction `id`, if it is the latest of its product.
        public func current(id: UInt64) -> Transaction? {
            current.first { $0.id == id }
        }

        /// The newest transaction of the subscription chain `originalID`.
        public func chainLatest(_ originalID: UInt64) -> Transaction? {
            current.filter { $0.originalID == originalID }.max { $0.id < $1.id }
        }

        /// A transaction of the group's chain, which carries its `originalID` and
        /// `originalPurchaseDate`; nil if the account never subscribed in the group. The
        /// account's own chain and one a family organiser shares are apart.
        public func groupOrigin(_ groupID: String, ownership: Transaction.OwnershipType = .purchased) -> Transaction? {
            current.first { $0.subscriptionGroupID == groupID && $0.ownershipType == ownership }
        }
    }

    /// What the app itself keeps, as the seed app keeps it in `NSUserDefaults`: the product
    /// identifiers it has delivered and the balance of each consumable.
    public struct AppRecord: Sendable, Equatable {
        /// Sorted, each once.
        public var purchasedProductIdentifiers: [String]
        public var consumables: [String: Int]

        public init(purchasedProductIdentifiers: [String] = [], consumables: [String: Int] = [:]) {
            self.purchasedProductIdentifiers = purchasedProductIdentifiers
            self.consumables = consumables
        }

        public func owns(_ productID: String) -> Bool {
            purchasedProductIdentifiers.contains(productID)
        }

        /// Takes a product back (a refund or an expiry the app noticed).
        public mutating func revoke(_ productID: String) {
            purchasedProductIdentifiers.removeAll { $0 == productID }
        }

        /// Adds `quantity` to a consumable's balance.
        /// - Throws: `Overflow` when the balance would pass `Int.max`; the balance is unchanged.
        public mutating func add(_ quantity: Int, of productID: String) throws(Overflow) {
            consumables[productID] = try PurchaseState.adding(
                quantity, to: consumables[productID] ?? 0, field: "app.consumables.\(productID)")
        }

        /// Records a delivered product. Returns false if it was already there.
        @discardableResult
        public mutating func deliver(_ productID: String) -> Bool {
            guard !owns(productID) else { return false }
            purchasedProductIdentifiers.append(productID)
            purchasedProductIdentifiers.sort()
            return true
        }
    }
}
