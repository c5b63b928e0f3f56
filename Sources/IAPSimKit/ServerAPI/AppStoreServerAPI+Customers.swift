import Foundation

/// The sessions of the store's customers a server has answered for, each made once so its
/// store keeps what it read (`StateCache`), and the customer list, read again only when
/// `customers.json` changes.
final class CustomerSessions: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [String: StoreSession] = [:]
    private var registry: (signature: FileSignature, registry: CustomerRegistry)?

    func session(_ name: String, from base: StoreSession) -> StoreSession {
        lock.withLock {
            if name == base.store.location.account { return base }
            if let known = sessions[name] { return known }
            let made = base.forAccount(name)
            sessions[name] = made
            return made
        }
    }

    /// The customer with `number`, as `customers.json` at `path` names it now.
    func name(ofNumber number: UInt64, path: String) throws(StateError) -> String? {
        if number == 0 { return StateLocation.defaultAccount }
        let signature = FileSignature.of(path)
        if let known = lock.withLock({ registry }), known.signature == signature, signature != .absent {
            return known.registry.name(of: number)
        }
        let read = try CustomerRegistry.read(path)
        lock.withLock { registry = (signature, read) }
        return read.name(of: number)
    }
}

extension AppStoreServerAPI {
    /// The server acting for the customer `segment` names: a transaction identifier, an
    /// `appTransactionId` or an order identifier, each of which tells its customer by its
    /// number (`PurchaseState.Account.customerNumber`) with no look at any customer's files.
    /// A segment that names no customer of the store leaves the server as it is: the request
    /// then finds nothing, as Apple answers an identifier it does not know.
    func acting(for segment: String) throws -> AppStoreServerAPI {
        guard let name = try otherCustomer(segment) else { return self }
        var other = self
        // The customer's session is kept between requests; its view is this request's own.
        other.session = customers.session(name, from: session).pinned()
        return other
    }

    /// The customer `segment` names when it is not the one this server acts for; nil otherwise.
    func otherCustomer(_ segment: String) throws -> String? {
        guard let number = Self.customerNumber(of: segment),
            let name = try customers.name(ofNumber: number, path: session.store.location.customersPath),
            name != session.store.location.account
        else { return nil }
        return name
    }

    /// A transaction identifier as Apple writes one: decimal digits only, above 0. The one parse
    /// of an identifier a client sends: `UInt64` alone also reads `+1`, which the customer
    /// filter, parsing otherwise, read as no customer at all.
    static func transactionNumber(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = UInt64(text), value > 0
        else { return nil }
        return value
    }

    /// The customer number an identifier in a path carries.
    static func customerNumber(of segment: String) -> UInt64? {
        if let id = OrderID.transactionID(segment) { return PurchaseState.Account.customerNumber(ofTransaction: id) }
        guard let value = transactionNumber(segment) else { return nil }
        // `StoreSession.appTransactionID`: "70", then sixteen digits or more, the customer's
        // number times 10¹³ added.
        if segment.utf8.count >= 18, segment.hasPrefix("70"), let rest = UInt64(segment.dropFirst(2)) {
            return rest / 10_000_000_000_000
        }
        return PurchaseState.Account.customerNumber(ofTransaction: value)
    }

    /// The identifier segment of an endpoint that acts for one customer, if `parts` (after
    /// `inApps`) is one.
    static func customerSegment(_ parts: ArraySlice<String>) -> String? {
        let p = Array(parts)
        guard p.count >= 3 else { return nil }
        switch (p[1], p.count) {
        case ("transactions", _) where p[2] == "appTransactions" || p[2] == "consumption":
            return p.count == 4 ? p[3] : nil
        case ("transactions", _): return p[2]
        case ("history", 3): return p[2]
        case ("subscriptions", 3): return p[2]
        case ("subscriptions", 4) where p[2] == "extend": return p[3]
        case ("refund", 4) where p[2] == "lookup": return p[3]
        case ("lookup", 3): return p[2]
        default: return nil
        }
    }
}
