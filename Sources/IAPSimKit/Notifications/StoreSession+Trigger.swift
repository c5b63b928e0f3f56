import Foundation

/// What `iapsim trigger` can produce: one App Store Server Notification, by its
/// `notificationType` and `subtype` (Apple, "notificationType" and "subtype"), spelled
/// `TYPE` or `TYPE/SUBTYPE`.
public enum NotificationTrigger: String, CaseIterable, Sendable {
    case subscribedInitialBuy = "SUBSCRIBED/INITIAL_BUY"
    case subscribedResubscribe = "SUBSCRIBED/RESUBSCRIBE"
    case didRenew = "DID_RENEW"
    case didRenewBillingRecovery = "DID_RENEW/BILLING_RECOVERY"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case didFailToRenewGracePeriod = "DID_FAIL_TO_RENEW/GRACE_PERIOD"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case expiredVoluntary = "EXPIRED/VOLUNTARY"
    case expiredBillingRetry = "EXPIRED/BILLING_RETRY"
    case autoRenewDisabled = "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"
    case autoRenewEnabled = "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED"
    case renewalPrefUpgrade = "DID_CHANGE_RENEWAL_PREF/UPGRADE"
    case renewalPrefDowngrade = "DID_CHANGE_RENEWAL_PREF/DOWNGRADE"
    case renewalPref = "DID_CHANGE_RENEWAL_PREF"
    case refund = "REFUND"
    case oneTimeCharge = "ONE_TIME_CHARGE"
    case test = "TEST"
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case refundDeclined = "REFUND_DECLINED"
    case refundReversed = "REFUND_REVERSED"
    case priceIncreasePending = "PRICE_INCREASE/PENDING"
    case priceIncreaseAccepted = "PRICE_INCREASE/ACCEPTED"
    case expiredPriceIncrease = "EXPIRED/PRICE_INCREASE"
    case offerRedeemed = "OFFER_REDEEMED"
    case offerRedeemedDowngrade = "OFFER_REDEEMED/DOWNGRADE"
    case revoke = "REVOKE"
    case renewalExtended = "RENEWAL_EXTENDED"
    case renewalExtensionSummary = "RENEWAL_EXTENSION/SUMMARY"
    case renewalExtensionFailure = "RENEWAL_EXTENSION/FAILURE"

    /// A trigger as a person types it, in any case (`did_fail_to_renew/grace_period`).
    /// - Throws: `SimulationError.cannotTrigger` naming `text`.
    public init(text: String) throws(SimulationError) {
        guard let trigger = Self(rawValue: text.uppercased()) else {
            throw .cannotTrigger(name: text, reason: "not one iapsim can trigger; 'iapsim trigger --list' lists them")
        }
        self = trigger
    }

    /// The notification's `notificationType`.
    public var kind: ServerNotification.Kind {
        ServerNotification.Kind(rawValue: String(rawValue.prefix { $0 != "/" }))!
    }

    /// The notification's `subtype`, if it has one.
    public var subtype: ServerNotification.Subtype? {
        guard let slash = rawValue.firstIndex(of: "/") else { return nil }
        return ServerNotification.Subtype(rawValue: String(rawValue[rawValue.index(after: slash)...]))
    }
}

/// `iapsim trigger`: makes happen, on the current state, the events that raise one
/// notification, the way `stripe trigger` does for Stripe's events.
extension StoreSession {
    /// What `trigger` can produce, as `TYPE` or `TYPE/SUBTYPE`.
    public static let triggerable: [String] = NotificationTrigger.allCases.map(\.rawValue)

    /// Runs the events that produce the notification `name` (e.g. `DID_FAIL_TO_RENEW/GRACE_PERIOD`).
    /// - Throws: `SimulationError.cannotTrigger` when `name` is not a `NotificationTrigger`, and
    ///   what `trigger(_:productID:in:)` throws.
    public func trigger(_ name: String, productID: String?, in catalog: Catalog) throws -> [ServerNotification] {
        try trigger(try NotificationTrigger(text: name), productID: productID, in: catalog)
    }

    /// Runs the events that produce `wanted`, on `productID` or a product of `catalog` that
    /// fits. Settings changed on the way (billing retry, grace period) are put back.
    /// - Returns: the notifications the events raised, the asked one among them.
    /// - Throws: `SimulationError.cannotTrigger` when nothing in the catalog or the state fits.
    public func trigger(_ wanted: NotificationTrigger, productID: String?, in catalog: Catalog) throws
        -> [ServerNotification]
    {
        let before = try store.read().outbox.count
        func fail(_ reason: String) -> SimulationError { .cannotTrigger(name: wanted.rawValue, reason: reason) }
        func product(_ matching: (Product) -> Bool, _ what: String) throws -> Product {
            if let productID {
                guard let product = catalog.product(productID), matching(product) else {
                    throw fail("\(productID) is not \(what) of the catalog")
                }
                return product
            }
            guard let product = catalog.products.first(where: matching) else {
                throw fail("the catalog has no \(what)")
            }
            return product
        }
        func buy(_ product: Product) throws {
            _ = try purchase(try quote(product, in: catalog), in: catalog, outcome: .success)
        }
        func chain(_ product: Product) throws -> AccountStatus.SubscriptionStatus? {
            try status().subscriptions.last { $0.productID == product.id || $0.autoRenewProductID == product.id }
        }
        /// A subscription of `product`, active now.
        func subscribed(_ product: Product) throws -> AccountStatus.SubscriptionStatus {
            if let current = try chain(product), current.state == .subscribed || current.state == .inGracePeriod {
                return current
            }
            try buy(product)
            guard let current = try chain(product) else { throw fail("\(product.id) did not start") }
            return current
        }
        func moveClock(past date: Date?) throws {
            guard let date else { throw fail("the subscription has no expiration date") }
            let now = try clockReading().now
            if date >= now { _ = try setClock(to: date.addingTimeInterval(1)) }
        }
        /// Runs `body` with billing retry (and the grace period) on, then restores them.
        func withBillingIssues(grace: Bool, _ body: () throws -> Void) throws {
            let overrides = try store.read().simulation.settings
            _ = try setSetting(.billingRetry, to: "true")
            _ = try setSetting(.gracePeriod, to: grace ? "true" : "false")
            defer {
                for key in [SettingKey.billingRetry, .gracePeriod] {
                    if let value = overrides[key] {
                        _ = try? setSetting(key, to: value)
                    } else {
                        _ = try? resetSettings(key)
                    }
                }
            }
            try body()
        }
        let isSubscription = { (product: Product) in product.subscription != nil }
        /// Two levels of one group, (lower, higher), that `fits`: level 1 is the highest (Apple,
        /// "Ranking subscriptions within the group").
        func levels(_ fits: (Product, Product) -> Bool) throws -> (Product, Product) {
            let subscriptions = catalog.products.filter(isSubscription)
            for lower in subscriptions {
                guard let group = lower.subscription?.groupID, let level = lower.subscription?.groupLevel else {
                    continue
                }
                for higher in subscriptions
                where higher.subscription?.groupID == group && (higher.subscription?.groupLevel ?? level) < level
                    && (productID == nil || lower.id == productID || higher.id == productID) && fits(lower, higher)
                {
                    return (lower, higher)
                }
            }
            throw fail("the catalog has no group with two levels that fit")
        }
        /// An offer a subscriber of the group may redeem on `product`: an offer code for existing
        /// subscribers, else a promotional offer, signed with the catalog's key when it has one.
        func offer(for product: Product) -> OfferRequest? {
            guard let subscription = product.subscription else { return nil }
            if let code = subscription.offerCodes.first(where: {
                $0.eligibility.isEmpty || $0.eligibility.contains(.existing)
            }), let id = code.id {
                return .code(id: id)
            }
            guard let id = subscription.promotionalOffers.first?.id else { return nil }
            let timestamp = Int64((realNow().timeIntervalSince1970 * 1000).rounded(.down))
            let signature = try? catalog.store.offerSigningKey.map { key in
                try PromotionalOfferSignature.sign(
                    with: key, bundleID: try settings().bundleID, productID: product.id, offerID: id,
                    appAccountToken: nil, nonce: UUID(), timestamp: timestamp)
            }
            return .offer(id: id, signature: signature ?? nil)
        }
        func redeem(_ product: Product) throws {
            guard let request = offer(for: product) else { throw fail("\(product.id) has no offer to redeem") }
            let receipt = try purchase(
                try quote(PurchaseRequest(made: product.id, quantity: .one, offer: request), in: catalog),
                in: catalog, outcome: .success)
            if case .failed(let error) = receipt.result { throw fail("the offer was refused: \(error.qualifiedName)") }
        }
        switch wanted {
        case .subscribedInitialBuy:
            let status = try status()
            let fresh = try product(
                { product in
                    guard let group = product.subscription?.groupID else { return false }
                    return status.isEligibleForIntroOffer(group: group)
                }, "a subscription in a group the account never subscribed in (try 'iapsim reset --yes')")
            try buy(fresh)
        case .subscribedResubscribe:
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            if try chain(subscription) == nil { try buy(subscription) }
            if let current = try chain(subscription), current.state != .expired {
                _ = try expireSubscription(current.productID)
            }
            try buy(subscription)
        case .didRenew:
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            _ = try subscribed(subscription)
            _ = try renewSubscription(subscription.id)
        case .didFailToRenew, .didFailToRenewGracePeriod, .gracePeriodExpired, .expiredBillingRetry,
            .didRenewBillingRecovery:
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            let grace = wanted != .didFailToRenew && wanted != .expiredBillingRetry
            try withBillingIssues(grace: grace) {
                let current = try subscribed(subscription)
                try moveClock(past: current.expirationDate)
                let failing = try chain(subscription)
                switch wanted {
                case .gracePeriodExpired: try moveClock(past: failing?.gracePeriodExpirationDate)
                case .expiredBillingRetry:
                    let info = try store.read().simulation.renewals.first { $0.originalID == current.originalID }
                    try moveClock(past: info?.billingRetryEndDate)
                case .didRenewBillingRecovery: _ = try resolve(current.originalID, in: catalog)
                default: break
                }
            }
        case .expiredVoluntary:
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            let current = try subscribed(subscription)
            if current.willAutoRenew { _ = try cancelSubscription(current.productID) }
            try moveClock(past: current.expirationDate)
        case .autoRenewDisabled, .autoRenewEnabled:
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            let current = try subscribed(subscription)
            if current.willAutoRenew { _ = try cancelSubscription(current.productID) }
            if wanted == .autoRenewEnabled { _ = try resumeSubscription(current.productID) }
        case .renewalPrefUpgrade, .renewalPrefDowngrade, .renewalPref:
            let (lower, higher) = try levels { _, _ in true }
            if wanted == .renewalPrefUpgrade {
                _ = try subscribed(lower)
                try buy(higher)
            } else {
                _ = try subscribed(higher)
                try buy(lower)
                if wanted == .renewalPref { try buy(higher) }  // back to the current plan
            }
        case .refund:
            let target = try product({ _ in true }, "a product")
            try buy(target)
            guard
                let id = try history(productID: target.id).entries().last(where: { $0.state != .revoked })?.transaction
                    .id
            else { throw fail("no transaction of \(target.id) to refund") }
            _ = try refund(id, reason: .other)
        case .consumptionRequest, .refundDeclined, .refundReversed:
            // A consumable: Apple asks for consumption information when its refund is requested.
            let target = try product({ $0.type == .consumable }, "a consumable")
            try buy(target)
            guard
                let id = try history(productID: target.id).entries().last(where: { $0.state != .revoked })?.transaction
                    .id
            else { throw fail("no transaction of \(target.id)") }
            if wanted == .refundReversed {
                _ = try refund(id, reason: .other)
                _ = try reverseRefund(id)
            } else {
                _ = try requestRefund(id, reason: .unintendedPurchase)
                if wanted == .refundDeclined { _ = try declineRefund(id) }
            }
        case .priceIncreasePending, .priceIncreaseAccepted, .expiredPriceIncrease:
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            let current = try subscribed(subscription)
            if !current.willAutoRenew { _ = try resumeSubscription(current.productID) }
            let price = current.renewalInfo.nextRenewalPrice + 1
            _ = try increasePrice(current.autoRenewProductID, to: price, requiresConsent: true)
            switch wanted {
            case .priceIncreaseAccepted: _ = try consentToPriceIncrease(current.autoRenewProductID)
            case .expiredPriceIncrease:
                _ = try declinePriceIncrease(current.autoRenewProductID)
                try moveClock(past: try chain(subscription)?.expirationDate)
            default: break
            }
        case .offerRedeemed:
            // A subscriber redeems an offer for the plan it has: it starts at the next renewal.
            let subscription = try product(
                { offer(for: $0) != nil },
                "a subscription with an offer code for existing subscribers or a promotional offer")
            if try subscribed(subscription).productID != subscription.id {
                // Another plan of the group is current (a downgrade waits): start this one.
                _ = try expireSubscription(subscription.id)
                _ = try subscribed(subscription)
            }
            try redeem(subscription)
        case .offerRedeemedDowngrade:
            // A subscriber of a higher level redeems an offer for a lower one: it starts then.
            let (lower, higher) = try levels { lower, _ in offer(for: lower) != nil }
            _ = try subscribed(higher)
            try redeem(lower)
        case .revoke:
            let shared = try product(
                { $0.familyShareable && $0.type != .consumable }, "a family-shareable product (familyShareable)")
            let transaction = try shareFromFamily(PurchaseRequest(made: shared.id, quantity: .one), in: catalog)
            _ = try revokeFamilySharing(transaction.id)
        case .oneTimeCharge:
            guard try settings().oneTimeChargeNotifications else {
                throw fail(
                    "one-time-charge-notifications is false ('iapsim settings set one-time-charge-notifications true')")
            }
            try buy(
                try product({ $0.subscription == nil }, "a consumable, non-consumable or non-renewing subscription"))
        case .test:
            _ = try sendTestNotification()
        case .renewalExtended, .renewalExtensionSummary:
            // A paid period (Apple extends no free trial): past the introductory one if needed.
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            var current = try subscribed(subscription)
            if current.transaction.offerPaymentMode == .freeTrial {
                if !current.willAutoRenew { _ = try resumeSubscription(current.productID) }
                try moveClock(past: current.expirationDate)
                current = try subscribed(subscription)
            }
            if wanted == .renewalExtended {
                _ = try extendRenewalDate(originalID: current.originalID, days: 1)
            } else {
                try extendAllRenewalDates(productID: current.productID, days: 1)
            }
        case .renewalExtensionFailure:
            // A subscriber in billing retry cannot be extended.
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            var failing = subscription.id
            try withBillingIssues(grace: false) {
                let current = try subscribed(subscription)
                if !current.willAutoRenew { _ = try resumeSubscription(current.productID) }
                try moveClock(past: current.expirationDate)
                failing = try chain(subscription)?.productID ?? failing
            }
            try extendAllRenewalDates(productID: failing, days: 1)
        }
        let records = try notifications()
        return Array(records.suffix(max(0, records.count - before)).map(\.notification))
    }
}
