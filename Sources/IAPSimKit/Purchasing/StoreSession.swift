import Foundation

/// The purchase flow of one app against one account: what `SKPaymentQueue`, StoreKit 2's
/// `Product.purchase()`, `AppStore.sync()` and `Transaction.currentEntitlements` do on a
/// device, under the `SKTestSession` controls kept in the state.
///
/// Every operation runs under the state lock with time brought up to date first: the
/// simulated clock read, and subscriptions renewed or expired up to it.
public struct StoreSession: Sendable {
    public private(set) var store: StateStore
    /// What a session is made with and never changes, held once: a server hands its session to
    /// every request (pinned, or another customer's), and each copy of these as values
    /// retained every string of the settings.
    private final class Fixed: Sendable {
        let realNow: @Sendable () -> Date
        let catalogSettings: CatalogSettings
        let defaultSettings: SessionSettings
        let events: @Sendable (StoreEvent) -> Void
        let winBackOffers: [String: [String]]

        init(
            realNow: @escaping @Sendable () -> Date, catalogSettings: CatalogSettings,
            events: @escaping @Sendable (StoreEvent) -> Void, winBackOffers: [String: [String]]
        ) {
            self.realNow = realNow
            self.catalogSettings = catalogSettings
            self.defaultSettings = SessionSettings(defaults: catalogSettings)
            self.events = events
            self.winBackOffers = winBackOffers
        }
    }

    private let fixed: Fixed
    /// The real clock; the simulated one is derived from it and the state.
    public var realNow: @Sendable () -> Date { fixed.realNow }
    /// The catalog's `settings` block: the defaults under any `iapsim settings set`.
    public var catalogSettings: CatalogSettings { fixed.catalogSettings }
    /// `catalogSettings` over iapsim's own values, worked out once; each operation lays the
    /// state's overrides over it.
    var defaultSettings: SessionSettings { fixed.defaultSettings }
    /// Told of what happens as time is brought up to date or the app launches, beside what an
    /// operation returns (`StoreEvent`). It may be told of one event more than once: a quote
    /// looks at the state before the purchase changes it.
    public var events: @Sendable (StoreEvent) -> Void { fixed.events }
    /// The catalog's win-back offers its `.storekit` file makes eligible, by product: what
    /// `eligibleWinBackOfferIDs` offers a lapsed subscriber.
    public var winBackOffers: [String: [String]] { fixed.winBackOffers }

    public init(
        store: StateStore, now: @escaping @Sendable () -> Date, catalogSettings: CatalogSettings = CatalogSettings(),
        events: @escaping @Sendable (StoreEvent) -> Void = { _ in }, winBackOffers: [String: [String]] = [:]
    ) {
        self.store = store
        fixed = Fixed(realNow: now, catalogSettings: catalogSettings, events: events, winBackOffers: winBackOffers)
    }

    /// The session of `catalog`: its settings as defaults, its win-back offers.
    public init(
        store: StateStore, now: @escaping @Sendable () -> Date, catalog: Catalog,
        events: @escaping @Sendable (StoreEvent) -> Void = { _ in }
    ) {
        var offers: [String: [String]] = [:]
        for product in catalog.store.products {
            let ids = product.subscription?.winBackOffers.filter(\.isEligible).compactMap(\.id) ?? []
            if !ids.isEmpty { offers[product.id] = ids }
        }
        self.init(
            store: store, now: now, catalogSettings: catalog.store.settings, events: events, winBackOffers: offers)
    }

    /// This session with one view of the state for one request (`StateStore.pinned()`).
    public func pinned() -> StoreSession {
        var copy = self
        copy.store = store.pinned()
        return copy
    }

    /// The moment an operation runs at: the simulated time and the settings in force.
    public struct Moment: Sendable {
        public var now: Date
        public var settings: SessionSettings

        /// The same moment for a transaction made outside the app: an Ask to Buy approval, an
        /// interrupted purchase completed, a purchase shared by the family, a renewal. The app
        /// learns of it through `Transaction.updates` or its payment queue's observer and
        /// must finish it itself (Apple, "Finishing a transaction": transactions stay in the
        /// queue until the app finishes them), whatever `finish-transactions` says and
        /// whichever front end (the command line, `SKTestSession`, the page) made it.
        /// `finish-transactions auto` stands for the app's own observer finishing what the
        /// app itself bought (`iapsim buy`), as the tutorials' apps do.
        public var outsideTheApp: Moment {
            var moment = self
            moment.settings.finishTransactions = .manual
            return moment
        }
    }

    /// Runs `body` on the up-to-date state under the lock, and saves what it changed.
    public func transact<Result>(_ body: (inout PurchaseState, Moment) throws -> Result) throws -> Result {
        try transact(startingTheClock: true, body)
    }

    /// - Parameter startingTheClock: whether a state with no clock yet records it (a change
    ///   does; a look need not, since an unset clock reads real time all the same).
    private func transact<Result>(startingTheClock: Bool, _ body: (inout PurchaseState, Moment) throws -> Result)
        throws -> Result
    {
        let real = realNow()
        return try store.update { state in
            if startingTheClock, state.simulation.clock == nil {
                state.simulation.clock = SimulatedClock(base: real, anchor: real, frozen: false)
            }
            if startingTheClock, state.account.appTransactionID == nil {
                let first = state.simulation.clock.map { SimulatedClock.now($0, real: real, rate: .realTime) } ?? real
                state.account.appTransactionID = Self.appTransactionID(
                    firstUse: first, customer: state.account.customerNumber)
                state.account.firstUseDate = first
            }
            let moment = self.moment(state, real: real)
            try bringUpToDate(&state, moment)
            return try body(&state, moment)
        }
    }

    /// What time passing does: subscriptions renew or expire, and Ask to Buy requests nobody
    /// answered expire.
    private func bringUpToDate(_ state: inout PurchaseState, _ moment: Moment) throws {
        try SubscriptionEngine.advance(&state, to: moment.now, settings: moment.settings)
        for request in state.expireAskToBuyRequests(at: moment.now) { events(.askToBuyExpired(request)) }
    }

    /// Like `transact`, for a `body` that only looks. Bringing time up to date may record
    /// renewals, so an existing state is looked at under the lock and saved if time changed
    /// it. With no state yet nothing is created (looking never makes the state folder), and
    /// when the state cannot be written (a read-only file system) time is brought up to date
    /// in memory only.
    public func look<Result>(_ body: (PurchaseState, Moment) throws -> Result) throws -> Result {
        guard store.exists else { return try lookInMemory(body) }
        do {
            return try transact(startingTheClock: false) { state, moment in try body(state, moment) }
        } catch StateError.cannotCreate {
            return try lookInMemory(body)
        }
    }

    /// Like `look`, without the lock and without saving: time is brought up to date in
    /// memory only. For a quote, which `purchase` makes again under the lock.
    func peek<Result>(_ body: (PurchaseState, Moment) throws -> Result) throws -> Result {
        try lookInMemory(body)
    }

    private func lookInMemory<Result>(_ body: (PurchaseState, Moment) throws -> Result) throws -> Result {
        let real = realNow()
        return try store.view { state in
            let moment = self.moment(state, real: real)
            try bringUpToDate(&state, moment)
            return try body(state, moment)
        }
    }

    /// Like `look`, as the app launching: `Transaction.updates` first delivers the transactions
    /// made outside the app since its last launch (`StoreEvent.delivered`), once each.
    func launch<Result>(_ body: (PurchaseState, Moment) throws -> Result) throws -> Result {
        guard store.exists else { return try lookInMemory(body) }
        do {
            return try transact(startingTheClock: false) { state, moment in
                try deliverUpdates(&state)
                return try body(state, moment)
            }
        } catch StateError.cannotCreate {
            return try lookInMemory(body)
        }
    }

    /// Delivers the transactions waiting for `Transaction.updates`, under the lock.
    func deliverUpdates(_ state: inout PurchaseState) throws {
        let ids = state.simulation.undeliveredTransactionIDs
        guard !ids.isEmpty else { return }
        state.simulation.undeliveredTransactionIDs = []
        for id in ids {
            if let transaction = try state.account.current(id: id) ?? store.transaction(id) {
                events(.delivered(transaction))
            }
        }
    }

    /// An `appTransactionId` for an account first used at `date`: Apple's are long decimal
    /// numbers; this one is stable for a given first use, so fixed clocks give fixed ids. Each
    /// customer of the store (`customer`, its number) has its own range of them, so two
    /// customers who first use the app at the same moment never share one.
    static func appTransactionID(firstUse date: Date, customer: UInt64 = 0) -> String {
        let milliseconds = UInt64(max(0, Int64((date.timeIntervalSince1970 * 1000).rounded())))
        let digits =
            customer == 0
            ? String(milliseconds % 10_000_000_000_000_000)
            : String(milliseconds % 10_000_000_000_000 + customer &* 10_000_000_000_000)
        return "70" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    func moment(_ state: PurchaseState, real: Date) -> Moment {
        let settings = defaultSettings.overriding(state.simulation.settings)
        return Moment(
            now: SimulatedClock.now(state.simulation.clock, real: real, rate: settings.timeRate), settings: settings)
    }

    /// The settings in force, without taking the lock. They live in the snapshot alone
    /// (a journal line replayed after a crash never changes them).
    public func settings() throws -> SessionSettings {
        defaultSettings.overriding(try store.snapshotView().simulation.settings)
    }

    /// The simulated time now, read without the lock (as `settings()` is): for what only shows
    /// the time — a `Date` header, a token's window — on every request. The clock and its rate
    /// are the app's, so `store.json` alone is read; the snapshot only in a folder from before
    /// customers, where `default`'s snapshot held them.
    public func simulatedNow() throws -> Date { try simulatedNow(seen: nil) }

    /// `simulatedNow()` for a caller that has just taken the `stat` of `store.json`
    /// (`SettledStateVersion`): the app's state in memory is used without a second one.
    func simulatedNow(seen appState: SettledFileSignature?) throws -> Date {
        guard let app = try store.appStateView(seen: appState) else {
            return moment(try store.snapshotView(), real: realNow()).now
        }
        return SimulatedClock.now(app.clock, real: realNow(), rate: defaultSettings.timeRate(with: app.settings))
    }

    /// The settings as the app has them, without any customer's own (storefront, locale, …
    /// at their defaults): all the App Store Server API and `/verifyReceipt` need, read
    /// without the customer's snapshot (`StateStore.appSettings`).
    public func appSettings() throws -> SessionSettings {
        defaultSettings.overriding(try store.appSettings())
    }

    // MARK: Restore, status, reset

    /// `AppStore.sync()` / `restoreCompletedTransactions()`: re-delivers to the app's record
    /// every non-consumable and active auto-renewable subscription the account holds.
    /// - Returns: the product identifiers re-delivered, sorted, and the transactions the app
    ///   has still not finished.
    /// - Throws: `SimulationError.simulated` when the session simulates an App Store sync error.
    public func restore() throws -> Restoration {
        try transact { state, moment in
            if let error = moment.settings.simulatedError(.appStoreSyncError) {
                throw SimulationError.simulated(api: "App Store sync", error: error)
            }
            try deliverUpdates(&state)
            let restored = AccountStatus(state: state, at: moment.now).entitlements
                .filter { $0.productType.isRestorable }.map(\.productID)
            for productID in restored { state.app.deliver(productID) }
            return Restoration(
                productIDs: Array(Set(restored)).sorted(),
                unfinishedTransactionIDs: state.simulation.unfinishedTransactionIDs)
        }
    }

    /// What `restore` re-delivered.
    public struct Restoration: Sendable, Equatable {
        public var productIDs: [String]
        public var unfinishedTransactionIDs: [UInt64]
    }

    /// What the app and the account hold now.
    /// - Parameter launchingTheApp: as the app sees it when it launches: `Transaction.updates`
    ///   delivers the transactions made outside it first (`StoreEvent.delivered`).
    public func status(launchingTheApp: Bool = false) throws -> AccountStatus {
        if launchingTheApp {
            return try launch { state, moment in
                var status = AccountStatus(state: state, at: moment.now, environment: moment.settings.environment)
                status.subscriptionStatusError = moment.settings.simulatedError(.subscriptionStatusError)
                status.verificationError = moment.settings.simulatedError(.verificationError)
                return status
            }
        }
        return try look { state, moment in
            AccountStatus(state: state, at: moment.now, environment: moment.settings.environment)
        }
    }

    /// Forgets the app's record, as deleting and reinstalling the app does. The account keeps
    /// its transactions, so `restore` has work to do.
    public func resetApp() throws {
        try store.update { state in state.app = PurchaseState.AppRecord() }
    }

    /// Erases the app's record, the account's history and the session.
    /// - Returns: the files removed. A state that cannot be parsed is removed too: erasing is
    ///   the way out of it.
    @discardableResult
    public func resetAll() throws -> [String] {
        try store.erase()
    }
}

extension StoreSession {
    /// The whole state brought up to date, and the moment it is current at.
    public func snapshot() throws -> (state: PurchaseState, moment: Moment) {
        try look { state, moment in (state, moment) }
    }
}
