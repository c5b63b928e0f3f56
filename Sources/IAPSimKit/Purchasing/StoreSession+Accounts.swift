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
    /// Whole, or half-added or half-removed by a command a crash interrupted.
    public var condition: StateStore.AccountCondition = .complete
}

extension StoreSession {
    /// The same session, acting for the customer `name` of the same store.
    public func forAccount(_ name: String) -> StoreSession {
        StoreSession(
            store: StateStore(location: store.location.forAccount(name)), now: realNow,
            catalogSettings: catalogSettings, events: events, winBackOffers: winBackOffers)
    }

    /// Every customer of the store, `default` first, each looked at as `status` looks at it
    /// (time brought up to date); one a crash left half-added or half-removed is listed as
    /// such, with what is left of it.
    public func accountSummaries() throws -> [AccountSummary] {
        let others = try store.accountEntries()
        return try ([(StateLocation.defaultAccount, 0, .complete)] + others).map { name, number, condition in
            try forAccount(name).look { state, moment in
                AccountSummary(
                    name: name, storefront: moment.settings[.storefront],
                    transactionCount: state.account.transactionCount,
                    activeSubscriptions: state.account.current.filter {
                        $0.productType == .autoRenewable && $0.isEntitlement(at: moment.now)
                    }.count,
                    number: condition == .complete ? state.account.customerNumber : number, condition: condition)
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

extension StoreSession {
    /// Brings every other customer of the store up to date with the clock, as the App Store
    /// renews and expires every subscriber's subscriptions as time passes: their renewals and
    /// their notifications are recorded, each at its own moment. A clock move does it, and so
    /// does each pass of `listen`, so the outbox holds every customer's events when they are due.
    public func bringOtherAccountsUpToDate() throws {
        for name in [StateLocation.defaultAccount] + (try store.accountNames()) where name != store.location.account {
            _ = try forAccount(name).snapshot()
        }
    }

    /// `base` for signing `notification`: the payload's transaction and renewal info carry the
    /// `appTransactionId` of the customer whose transaction it is, not the one this session acts for.
    /// - Parameter known: the customers' app transaction identifiers found so far, by number.
    func signingContext(
        _ base: SigningContext, for notification: ServerNotification, ownNumber: UInt64,
        known: inout [UInt64: String]
    ) -> SigningContext {
        guard let id = notification.transaction?.id else { return base }
        let number = PurchaseState.Account.customerNumber(ofTransaction: id)
        guard number != ownNumber else { return base }
        if known[number] == nil,
            let name = try? store.account(ofTransaction: id),
            let state = try? store.forAccount(name).readSnapshot()
        {
            known[number] =
                state.account.appTransactionID
                ?? Self.appTransactionID(firstUse: base.signedDate, customer: state.account.customerNumber)
        }
        guard let appTransactionID = known[number] else { return base }
        var context = base
        context.appTransactionID = appTransactionID
        return context
    }
}
