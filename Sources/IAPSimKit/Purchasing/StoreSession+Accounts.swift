import Foundation

/// One customer of the store, as `iapsim accounts` lists it.
public struct AccountSummary: Sendable, Equatable {
    public var name: String
    /// The storefront the customer buys in (its `storefront` setting, else the catalog's).
    public var storefront: String
    /// Transactions in the customer's history (deleted ones not counted).
    public var transactionCount: Int
    /// Auto-renewable subscriptions that give access now.
    public var activeSubscriptions: Int
    /// The number the customer's transaction identifiers start after (`idsPerCustomer` each).
    public var number: UInt64
}

extension StoreSession {
    /// The same session, acting for the customer `name` of the same store.
    public func forAccount(_ name: String) -> StoreSession {
        StoreSession(
            store: StateStore(location: store.location.forAccount(name)), now: realNow,
            catalogSettings: catalogSettings, events: events, winBackOffers: winBackOffers)
    }

    /// Every customer of the store, `default` first, each looked at as `status` looks at it
    /// (time brought up to date).
    public func accountSummaries() throws -> [AccountSummary] {
        try ([StateLocation.defaultAccount] + store.accountNames()).map { name in
            try forAccount(name).look { state, moment in
                AccountSummary(
                    name: name, storefront: moment.settings[.storefront],
                    transactionCount: state.account.transactionCount,
                    activeSubscriptions: state.account.current.filter {
                        $0.productType == .autoRenewable && $0.isEntitlement(at: moment.now)
                    }.count,
                    number: state.account.customerNumber)
            }
        }
    }

    /// `iapsim accounts add NAME`: a new customer of the store, buying in `storefront` when one
    /// is given (else the catalog's).
    /// - Returns: whether it was added (false: the store had it; its storefront is then set
    ///   when one is given).
    @discardableResult
    public func addAccount(storefront: Storefront? = nil) throws -> Bool {
        let added = try store.addAccount()
        if let storefront { _ = try setSetting(.storefront, to: storefront.countryCode) }
        return added
    }
}
