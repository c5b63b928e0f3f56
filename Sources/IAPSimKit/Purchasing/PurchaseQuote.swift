import Foundation

/// What buying a product would do, worked out before the buyer is asked: whether payments are
/// allowed, what is charged now, and whether it is a first purchase, an introductory offer, a
/// free re-download or a change of subscription level. A front end shows it in its prompt,
/// then passes it to `StoreSession.purchase(_:in:outcome:)`, which buys what its request asks.
public struct PurchaseQuote: Sendable, Equatable {
    /// How the purchase would go, as the App Store's payment sheet tells the buyer.
    public enum Kind: Sendable, Equatable {
        /// A charge at the product's price (times the quantity, for a consumable).
        case purchase
        /// The group's introductory offer: the buyer is eligible (Apple, "Implementing
        /// introductory offers in your app": once per subscription group).
        case introductoryOffer(SubscriptionOffer)
        /// A non-consumable the account owns: downloaded again for free.
        case redownload(Transaction)
        /// The product is the active subscription of its group: nothing to buy.
        case alreadySubscribed(Transaction)
        /// A higher level of an active subscription's group: it replaces `replacing` now.
        case upgrade(replacing: Transaction)
        /// A lower level (or another period of the same level): it starts at the next
        /// renewal of `current`, and nothing is charged now.
        case downgrade(current: Transaction)
        /// The current plan, bought while a downgrade waits: the downgrade is cancelled and
        /// the subscription renews as it is.
        case keepCurrentPlan(current: Transaction)
    }

    public var product: Product
    /// What the buyer asked for: the quantity, the options, how it should end.
    public var request: PurchaseRequest
    public var quantity: PurchaseQuantity { request.quantity }
    public var kind: Kind
    /// What the buyer pays now, in the storefront's currency.
    public var price: Decimal
    /// `SKPaymentQueue.canMakePayments()` / `AppStore.canMakePayments`.
    public var canMakePayments: Bool
    /// The simulated time the quote was made at.
    public var date: Date
    /// The session settings in force then.
    public var settings: SessionSettings
    /// The billing plan chosen (`buy --billing-plan monthly`); nil to pay each period at once.
    public var billingPlan: BillingPlan?
    /// What the buyer asked to redeem, and the offer it is, if StoreKit accepts it.
    public var offerRequest: OfferRequest? { request.offer }
    public var offer: AppliedOffer?
    /// Why StoreKit refuses the offer asked for (`Product.PurchaseError`): the purchase then
    /// fails without a charge.
    public var offerError: SimulatedError?

    /// Whether buying charges the buyer now.
    public var charges: Bool {
        switch kind {
        case .purchase, .introductoryOffer, .upgrade: true
        case .redownload, .alreadySubscribed, .downgrade, .keepCurrentPlan: false
        }
    }
}

extension StoreSession {
    /// Quotes `request` from `catalog`: what `Product.purchase(options:)` would do now.
    /// - Throws: `SimulationError.simulated` when loading products (or, for an offer code,
    ///   redeeming it) fails in this session, `PurchaseError` when the product cannot be bought
    ///   (unknown, not in the storefront, a quantity other than 1 for anything but a consumable,
    ///   a billing plan it has not), `StateError` if the state fails.
    public func quote(_ request: PurchaseRequest, in catalog: Catalog) throws -> PurchaseQuote {
        try quote(product: { try catalog.purchasableProduct(request.productID) }, request: request, in: catalog)
    }

    /// Quotes a purchase of `product`, a product the app already holds.
    public func quote(_ product: Product, quantity: PurchaseQuantity = .one, in catalog: Catalog) throws
        -> PurchaseQuote
    {
        try quote(product: { product }, request: PurchaseRequest(made: product.id, quantity: quantity), in: catalog)
    }

    private func quote(product find: () throws -> Product, request: PurchaseRequest, in catalog: Catalog) throws
        -> PurchaseQuote
    {
        // No lock: the purchase quotes again under it, on the state as it is then.
        let (state, moment) = try peek { state, moment in (state, moment) }
        if let error = moment.settings.simulatedError(.loadProductsError) {
            throw SimulationError.simulated(api: "Loading products", error: error)
        }
        if case .code = request.offer, let error = moment.settings.simulatedError(.offerCodeRedeemError) {
            throw SimulationError.simulated(api: "Offer code redemption", error: error)
        }
        let product = try find()
        try Self.check(request.quantity, of: product)
        var plan: BillingPlan?
        if request.billingPlan == .monthly {
            guard let monthly = product.subscription?.monthlyPlan else {
                throw PurchaseError.noMonthlyBillingPlan(productID: product.id)
            }
            if request.offer != nil {
                throw PurchaseError.billingPlanNotApplicable(
                    productID: product.id, reason: "an offer is redeemed on the paid-up-front plan")
            }
            plan = monthly
        }
        let quote = Self.quote(
            product, request: request, in: catalog, state: state, moment: moment, realNow: realNow(), billingPlan: plan)
        if plan != nil, quote.billingPlan == nil {
            throw PurchaseError.billingPlanNotApplicable(
                productID: product.id, reason: "the group already has an active subscription")
        }
        return quote
    }

    /// `Product.PurchaseError.invalidQuantity`: only a consumable is bought more than one at a time.
    static func check(_ quantity: PurchaseQuantity, of product: Product) throws(PurchaseError) {
        if quantity != .one, product.type != .consumable {
            throw .invalidQuantity(productID: product.id, quantity: quantity.value)
        }
    }

    static func quote(
        _ product: Product, request: PurchaseRequest, in catalog: Catalog, state: PurchaseState, moment: Moment,
        realNow: Date = Date(), billingPlan: BillingPlan? = nil
    ) -> PurchaseQuote {
        let kind = Self.kind(of: product, in: catalog, state: state, at: moment.now)
        var price: Decimal
        switch kind {
        case .purchase, .upgrade: price = product.price * Decimal(request.quantity.value)
        case .introductoryOffer(let offer): price = offer.paymentMode == .freeTrial ? 0 : offer.price
        case .redownload, .alreadySubscribed, .downgrade, .keepCurrentPlan: price = 0
        }
        var quote = PurchaseQuote(
            product: product, request: request, kind: kind, price: price,
            canMakePayments: moment.settings.paymentsAllowed, date: moment.now, settings: moment.settings)
        if let billingPlan {
            quote.billingPlan = billingPlan
            switch kind {
            case .purchase, .upgrade:
                quote.price = billingPlan.price
            case .introductoryOffer:
                // The introductory offer is the paid-up-front plan's.
                quote.kind = .purchase
                quote.price = billingPlan.price
            case .redownload, .alreadySubscribed, .downgrade, .keepCurrentPlan:
                quote.billingPlan = nil
            }
        }
        if let offer = request.offer {
            let resolved = resolve(
                offer, product: product, kind: kind, catalog: catalog, state: state, moment: moment, realNow: realNow)
            quote.offerError = resolved.error
            if let applied = resolved.offer {
                quote.offer = applied
                if !applied.atNextRenewal, !applied.afterIntroductoryOffer {
                    quote.price = applied.offer.paymentMode == .freeTrial ? 0 : applied.offer.price
                }
            }
        }
        return quote
    }

    private static func kind(of product: Product, in catalog: Catalog, state: PurchaseState, at date: Date)
        -> PurchaseQuote.Kind
    {
        if product.type == .nonConsumable, let owned = state.account.latest(for: product.id),
            owned.isEntitlement(at: date)
        {
            return .redownload(owned)
        }
        let change = SubscriptionEngine.change(buying: product, in: state, at: date) { id in
            catalog.store.products.first { $0.id == id }?.subscription?.groupLevel
        }
        switch change {
        case .alreadySubscribed(let active):
            let info = state.simulation.renewals.first { $0.originalID == active.originalID }
            if let info, info.autoRenewProductID != active.productID { return .keepCurrentPlan(current: active) }
            return .alreadySubscribed(active)
        case .atNextRenewal(let current): return .downgrade(current: current)
        case .immediate(let replaced): return .upgrade(replacing: replaced)
        case .start:
            if let subscription = product.subscription, let offer = subscription.introductoryOffer,
                SubscriptionEngine.isEligibleForIntroOffer(group: subscription.groupID, in: state)
            {
                return .introductoryOffer(offer)
            }
            return .purchase
        }
    }
}
