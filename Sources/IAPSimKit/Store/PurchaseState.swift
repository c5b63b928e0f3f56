import Foundation

/// Everything iapsim remembers between runs: the account's side and the app's side, as a
/// device and the App Store keep them apart. A reinstall forgets `app`; the account remains.
public struct PurchaseState: Codable, Sendable, Equatable {
    /// The version of this layout. A file with a higher one was written by a newer iapsim and
    /// is never overwritten by this one.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var account: Account
    public var app: AppRecord
    /// The test session: settings, clock, pending purchases, renewals. Absent in files
    /// written before the simulation controls; read as empty.
    public var simulation: SimulationState

    public init(account: Account = Account(), app: AppRecord = AppRecord(), simulation: SimulationState = SimulationState()) {
        self.schemaVersion = Self.currentSchemaVersion
        self.account = account
        self.app = app
        self.simulation = simulation
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        account = try container.decode(Account.self, forKey: .account)
        app = try container.decode(AppRecord.self, forKey: .app)
        simulation = try container.decodeIfPresent(SimulationState.self, forKey: .simulation) ?? SimulationState()
    }

    /// The next transaction identifier, taken.
    public mutating func takeTransactionID() -> UInt64 {
        defer { account.nextTransactionID += 1 }
        return account.nextTransactionID
    }

    /// The index of transaction `id`, if the account has it.
    public func transactionIndex(_ id: UInt64) -> Int? {
        account.transactions.lastIndex { $0.id == id }
    }

    /// The App Store's record of the account: every transaction ever made.
    public struct Account: Codable, Sendable, Equatable {
        public var nextTransactionID: UInt64
        public var transactions: [Transaction]

        public init(nextTransactionID: UInt64 = 1, transactions: [Transaction] = []) {
            self.nextTransactionID = nextTransactionID
            self.transactions = transactions
        }
    }

    /// What the app itself keeps, as the seed app keeps it in `NSUserDefaults`: the product
    /// identifiers it has delivered and the balance of each consumable.
    public struct AppRecord: Codable, Sendable, Equatable {
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
