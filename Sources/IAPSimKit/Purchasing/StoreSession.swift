import Foundation

/// The purchase flow of one app against one account: what `SKPaymentQueue`, StoreKit 2's
/// `Product.purchase()`, `AppStore.sync()` and `Transaction.currentEntitlements` do on a
/// device, under the `SKTestSession` controls kept in the state.
///
/// Every operation runs under the state lock with time brought up to date first: the
/// simulated clock read, and subscriptions renewed or expired up to it.
public struct StoreSession: Sendable {
    public private(set) var store: StateStore
    /// The real clock; the simulated one is derived from it and the state.
    public let realNow: @Sendable () -> Date
    /// The catalog's `settings` block: the defaults under any `iapsim settings set`.
    public let catalogSettings: CatalogSettings
    /// `catalogSettings` over iapsim's own values, worked out once; each operation lays the
    /// state's overrides over it.
    let defaultSettings: SessionSettings
    /// Told of what happens as time is brought up to date or the app launches, beside what an
    /// operation returns (`StoreEvent`). It may be told of one event more than once: a quote
    /// looks at the state before the purchase changes it.
    public let events: @Sendable (StoreEvent) -> Void
    /// The catalog's win-back offers its `.storekit` file makes eligible, by product: what
    /// `eligibleWinBackOfferIDs` offers a lapsed subscriber.
    public let winBackOffers: [String: [String]]

    public init(
        store: StateStore, now: @escaping @Sendable () -> Date, catalogSettings: CatalogSettings = CatalogSettings(),
        events: @escaping @Sendable (StoreEvent) -> Void = { _ in }, winBackOffers: [String: [String]] = [:]
    ) {
        self.store = store
        self.realNow = now
        self.catalogSettings = catalogSettings
        self.defaultSettings = SessionSettings(defaults: catalogSettings)
        self.events = events
        self.winBackOffers = winBackOffers
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

    /// The simulated time now, read from the snapshot without the lock (as `settings()` is):
    /// for what only shows the time — a `Date` header, a token's window — on every request.
    public func simulatedNow() throws -> Date {
        moment(try store.snapshotView(), real: realNow()).now
    }

    /// The settings as the app has them, without any customer's own (storefront, locale, …
    /// at their defaults): all the App Store Server API and `/verifyReceipt` need, read
    /// without the customer's snapshot (`StateStore.appSettings`).
    public func appSettings() throws -> SessionSettings {
        defaultSettings.overriding(try store.appSettings())
    }

    // MARK: Buying

    /// How a purchase should end, overriding the settings for one call (`buy --outcome`).
    public enum Outcome: Sendable, Equatable {
        case success, cancel, askToBuy, interrupted
        case fail(SimulatedError)
    }

    /// What a purchase ended with.
    public enum PurchaseResult: Sendable, Equatable {
        /// A new transaction: the buyer was charged.
        case purchased(Transaction)
        /// A non-consumable the account already owns: StoreKit's free re-download.
        case redownloaded(Transaction)
        /// A subscription that is already active: "You're currently subscribed to this."
        case alreadySubscribed(Transaction)
        /// A lower level of an active subscription's group: it starts at the next renewal.
        case downgradeScheduled(current: Transaction, productID: String)
        /// Ask to Buy: `.pending` / `SKPaymentTransactionState.deferred`.
        case pending(PendingPurchase)
        /// Ask to Buy for a product whose request is still waiting: the two are one request
        /// (Apple, "Testing Ask to Buy"), whose 24 hours start again now.
        case requestRepeated(PendingPurchase)
        /// An interrupted purchase: it ends unsuccessfully — StoreKit 1 queues a failed
        /// transaction, StoreKit 2's `purchase()` does not return success — and is kept until
        /// its issue is resolved; then a new transaction arrives through `Transaction.updates`
        /// (Apple, "Testing an interrupted purchase").
        case interrupted(PendingPurchase)
        /// An offer a subscriber redeemed: it starts at the chain's next renewal.
        case offerScheduled(current: Transaction, offer: AppliedOffer)
        case cancelled
        case failed(SimulatedError)
    }

    /// A purchase's result with what the app holds after it.
    public struct Receipt: Sendable {
        public var result: PurchaseResult
        /// The product's balance afterwards, for a consumable.
        public var balance: Int
        public var unfinishedTransactionIDs: [UInt64]
        /// The simulated Verification error the purchase's transaction arrived `unverified`
        /// with: the app granted nothing and left it unfinished.
        public var verificationError: SimulatedError?
        /// The moment of the purchase, for StoreKit 2's fields of its transaction (read in the
        /// same step, so showing them needs no second read of the state).
        public var storeKitContext: StoreKitContext
    }

    /// `Product.purchase(options:)`: buys what `quote` describes, as its request asks, and
    /// delivers it to the app's record. The state is read afresh under the lock, so a purchase
    /// made by another process since the quote counts (a second buyer of a non-consumable gets
    /// the re-download). The app is running, so `Transaction.updates` delivers what waits for
    /// it first. The request's `appAccountToken` goes to the transaction, its renewals and a
    /// purchase left pending.
    /// - Parameter outcome: how the purchase ends, over the request's own outcome; nil keeps
    ///   that one, and with none the session settings decide.
    /// - Throws: `StateError` if the state fails.
    public func purchase(_ quote: PurchaseQuote, in catalog: Catalog, outcome: Outcome? = nil) throws -> Receipt {
        try transact { state, moment in
            try deliverUpdates(&state)
            let fresh = Self.quote(
                quote.product, request: quote.request, in: catalog, state: state, moment: moment, realNow: realNow(),
                billingPlan: quote.billingPlan)
            let result = try Self.purchase(
                fresh, in: catalog, outcome: outcome ?? quote.request.outcome, state: &state, moment: moment,
                appAccountToken: quote.request.appAccountTokenText)
            let unverified = result.transaction == nil ? nil : moment.settings.simulatedError(.verificationError)
            return Receipt(
                result: result, balance: state.app.consumables[quote.product.id] ?? 0,
                unfinishedTransactionIDs: state.simulation.unfinishedTransactionIDs, verificationError: unverified,
                storeKitContext: StoreKitContext(
                    signedDate: moment.now,
                    appTransactionID: state.account.appTransactionID
                        ?? Self.appTransactionID(firstUse: moment.now, customer: state.account.customerNumber),
                    environment: moment.settings.environment))
        }
    }

    /// - Parameter id: the identifier a completed purchase gets (an approved Ask to Buy
    ///   request's); nil for the next one.
    static func purchase(
        _ quote: PurchaseQuote, in catalog: Catalog, outcome: Outcome?, state: inout PurchaseState, moment: Moment,
        id: UInt64? = nil, appAccountToken: String? = nil
    ) throws -> PurchaseResult {
        let settings = moment.settings
        let product = quote.product
        // SKPaymentQueue.canMakePayments() is checked before anything else.
        guard quote.canMakePayments else { return .failed(SimulatedError.paymentNotAllowed) }
        let chosen: Outcome =
            outcome
            ?? (settings.simulatedError(.purchaseError).map(Outcome.fail)
                ?? (settings.askToBuy ? .askToBuy : settings.interruptedPurchases ? .interrupted : .success))
        switch chosen {
        case .cancel: return .cancelled
        case .fail(let error): return .failed(error)
        default: break
        }
        // What the app receives arrives unverified while the Verification error is set.
        let verified = settings.simulatedError(.verificationError) == nil
        if let error = quote.offerError { return .failed(error) }
        if quote.offer?.signatureChecked == true, case .offer(_, let signature?, _) = quote.offerRequest {
            state.simulation.redeem(signature)  // the purchase goes ahead: its nonce is spent
        }
        if let offer = quote.offer, offer.atNextRenewal {
            return scheduleOffer(offer, buying: quote, state: &state, moment: moment)
        }
        switch quote.kind {
        case .redownload(let owned):
            if verified { state.app.deliver(product.id) }
            return .redownloaded(owned)
        case .alreadySubscribed(let active):
            if verified { state.app.deliver(product.id) }
            return .alreadySubscribed(active)
        case .keepCurrentPlan(let current):
            // Apple, "Handling subscriptions billing": choosing the current plan again
            // cancels a pending downgrade.
            if let index = state.simulation.renewals.firstIndex(where: { $0.originalID == current.originalID }) {
                state.simulation.renewals[index].autoRenewProductID = current.productID
                state.simulation.renewals[index].willAutoRenew = true
                state.simulation.renewals[index].expirationReason = nil
                state.notify(
                    .didChangeRenewalPref, at: moment.now, transaction: current,
                    renewal: state.simulation.renewals[index], status: .active)
            }
            if verified { state.app.deliver(product.id) }
            return .alreadySubscribed(current)
        case .downgrade(let current):
            if let index = state.simulation.renewals.firstIndex(where: { $0.originalID == current.originalID }),
                let subscription = product.subscription
            {
                state.simulation.renewals[index].renew(as: product, period: subscription.period)
                state.simulation.renewals[index].willAutoRenew = true
                state.notify(
                    .didChangeRenewalPref, .downgrade, at: moment.now, transaction: current,
                    renewal: state.simulation.renewals[index], status: .active)
            }
            return .downgradeScheduled(current: current, productID: product.id)
        case .purchase, .introductoryOffer, .upgrade:
            break
        }
        if chosen == .askToBuy,
            let index = state.simulation.pending.firstIndex(where: {
                $0.reason == .askToBuy && $0.productID == product.id
            })
        {
            state.simulation.pending[index].requestDate = moment.now
            state.simulation.pending[index].purchasedQuantity = quote.quantity.value
            state.simulation.pending[index].appAccountToken = appAccountToken
            return .requestRepeated(state.simulation.pending[index])
        }
        if chosen == .askToBuy || chosen == .interrupted {
            let pending = PendingPurchase(
                id: try state.takeTransactionID(), productID: product.id, productType: product.type,
                purchasedQuantity: quote.quantity.value, reason: chosen == .askToBuy ? .askToBuy : .interrupted,
                requestDate: moment.now, appAccountToken: appAccountToken)
            state.simulation.pending.append(pending)
            return chosen == .askToBuy ? .pending(pending) : .interrupted(pending)
        }
        let transaction = try Self.complete(
            product, quantity: quote.quantity.value, id: try id ?? state.takeTransactionID(),
            storefront: catalog.storefront,
            state: &state, moment: moment, appAccountToken: appAccountToken, offer: quote.offer,
            billingPlan: quote.billingPlan)
        return .purchased(transaction)
    }

    /// A subscriber's offer: it waits on the chain for the next renewal, switching the chain
    /// to the offer's product then if it is another one of the group.
    private static func scheduleOffer(
        _ offer: AppliedOffer, buying quote: PurchaseQuote, state: inout PurchaseState, moment: Moment
    ) -> PurchaseResult {
        let product = quote.product
        // The subscriber's own chain: the one the quote found active (not one shared by the family).
        let active: Transaction?
        switch quote.kind {
        case .alreadySubscribed(let current), .keepCurrentPlan(let current), .downgrade(let current): active = current
        default: active = nil
        }
        guard let subscription = product.subscription, let active,
            let index = state.simulation.renewals.firstIndex(where: { $0.originalID == active.originalID }),
            let current = state.account.chainLatest(active.originalID)
        else { return .failed(.purchase(.ineligibleForOffer)) }
        var info = state.simulation.renewals[index]
        if info.autoRenewProductID != product.id { info.renew(as: product, period: subscription.period) }
        info.willAutoRenew = true
        info.expirationReason = nil
        info.pendingOffer = offer.pending
        state.simulation.renewals[index] = info
        // OFFER_REDEEMED: DOWNGRADE when it moves to a lower level, no subtype on the same plan.
        state.notify(
            .offerRedeemed, current.productID == product.id ? nil : .downgrade, at: moment.now, transaction: current,
            renewal: info, status: PurchaseState.notificationStatus(info, latest: current, at: moment.now))
        return .offerScheduled(current: current, offer: offer)
    }

    /// Records a completed purchase: the transaction, the subscription chain, the delivery to
    /// the app's record, and whether the app leaves it unfinished.
    /// - Parameter ownership: `familyShared` for a purchase the family organiser shares.
    static func complete(
        _ product: Product, quantity: Int, id: UInt64, storefront: Storefront, state: inout PurchaseState,
        moment: Moment, appAccountToken: String? = nil, ownership: Transaction.OwnershipType = .purchased,
        offer: AppliedOffer? = nil, billingPlan: BillingPlan? = nil
    ) throws -> Transaction {
        var transaction = Transaction(
            id: id, originalID: id, productID: product.id, productType: product.type, purchaseDate: moment.now,
            originalPurchaseDate: moment.now, purchasedQuantity: quantity,
            price: product.price * Decimal(quantity), currency: storefront.currencyCode,
            storefrontCountryCode: storefront.countryCode)
        transaction.appAccountToken = appAccountToken
        transaction.ownershipType = ownership
        var notification: (ServerNotification.Kind, ServerNotification.Subtype?)?
        if let subscription = product.subscription {
            // Which SUBSCRIBED or DID_CHANGE_RENEWAL_PREF this is, from the group before the
            // purchase changes it. A chain the family shares is apart from the account's own:
            // access through Family Sharing is SUBSCRIBED, INITIAL_BUY the first time (Apple,
            // "subtype"), whatever the account's own chain does.
            let group = subscription.groupID
            if state.account.groupOrigin(group, ownership: ownership) == nil {
                notification = (.subscribed, .initialBuy)
            } else if SubscriptionEngine.isGroupActive(group, in: state, at: moment.now, ownership: ownership) {
                notification = (.didChangeRenewalPref, .upgrade)
            } else {
                notification = (.subscribed, .resubscribe)
            }
            // Apple, "notificationType": OFFER_REDEEMED is an offer redeemed on an active
            // subscription (here an upgrade; one for the current plan or a lower level waits
            // for the renewal, `scheduleOffer`). A first subscription, or one after the group's
            // expired, is SUBSCRIBED whatever offer it came with.
            if let offer, !offer.afterIntroductoryOffer, notification?.1 == .upgrade {
                notification = (.offerRedeemed, .upgrade)
            }
            try SubscriptionEngine.start(
                &transaction, product: product, subscription: subscription, state: &state, at: moment.now,
                settings: moment.settings, offer: offer, billingPlan: billingPlan)
        } else if moment.settings.oneTimeChargeNotifications, ownership == .purchased || product.type == .nonConsumable
        {
            // Apple, "notificationType": ONE_TIME_CHARGE also when "the customer receives access
            // to a non-consumable product through Family Sharing".
            notification = (.oneTimeCharge, nil)
        }
        try state.account.record(transaction, isNew: true)
        if let (kind, subtype) = notification {
            let renewal = state.simulation.renewals.first {
                $0.originalID == transaction.originalID && product.subscription != nil
            }
            state.notify(
                kind, subtype, at: moment.now, transaction: transaction, renewal: renewal,
                status: renewal == nil ? nil : .active)
        }
        // An unverified transaction (the simulated Verification error) is one an app that
        // follows Apple's "Verifying transactions" grants nothing for and does not finish;
        // `restore` grants it once verification passes.
        let verified = moment.settings.simulatedError(.verificationError) == nil
        if verified, product.type == .consumable {
            try state.app.add(quantity, of: product.id)
        } else if verified {
            state.app.deliver(product.id)
        } else if product.type == .consumable {
            state.simulation.ungrantedTransactionIDs.append(id)
        }
        if !moment.settings.finishesTransactions || !verified { state.simulation.unfinishedTransactionIDs.append(id) }
        return transaction
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

extension StoreSession.PurchaseResult {
    /// The transaction a completed purchase delivered, if it did.
    public var transaction: Transaction? {
        switch self {
        case .purchased(let t), .redownloaded(let t), .alreadySubscribed(let t): t
        default: nil
        }
    }
}
