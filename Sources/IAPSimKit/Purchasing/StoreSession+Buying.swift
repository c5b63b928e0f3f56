import Foundation

/// Buying: how a purchase can end, and the purchase itself under the lock.
extension StoreSession {
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
                appAccountToken: quote.request.appAccountToken)
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
        id: UInt64? = nil, appAccountToken: UUID? = nil
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
        moment: Moment, appAccountToken: UUID? = nil, ownership: Transaction.OwnershipType = .purchased,
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
