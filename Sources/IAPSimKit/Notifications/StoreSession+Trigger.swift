import Foundation

/// `iapsim trigger`: makes happen, on the current state, the events that raise one
/// notification, the way `stripe trigger` does for Stripe's events.
extension StoreSession {
    /// What `trigger` can produce, as `TYPE` or `TYPE/SUBTYPE`.
    public static let triggerable: [String] = [
        "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/RESUBSCRIBE", "DID_RENEW", "DID_RENEW/BILLING_RECOVERY",
        "DID_FAIL_TO_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "EXPIRED/VOLUNTARY",
        "EXPIRED/BILLING_RETRY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
        "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED", "DID_CHANGE_RENEWAL_PREF/UPGRADE",
        "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_CHANGE_RENEWAL_PREF", "REFUND", "ONE_TIME_CHARGE", "TEST",
        "CONSUMPTION_REQUEST", "REFUND_DECLINED", "REFUND_REVERSED", "PRICE_INCREASE/PENDING",
        "PRICE_INCREASE/ACCEPTED", "EXPIRED/PRICE_INCREASE", "OFFER_REDEEMED/RESUBSCRIBE", "OFFER_REDEEMED", "REVOKE",
    ]

    /// Runs the events that produce the notification `name` (e.g. `DID_FAIL_TO_RENEW/GRACE_PERIOD`),
    /// on `productID` or a product of `catalog` that fits. Settings changed on the way
    /// (billing retry, grace period) are put back.
    /// - Returns: the notifications the events raised, the asked one among them.
    /// - Throws: `SimulationError.cannotTrigger` when nothing in the catalog or the state fits.
    public func trigger(_ name: String, productID: String?, in catalog: Catalog) throws -> [ServerNotification] {
        let wanted = name.uppercased()
        guard Self.triggerable.contains(wanted) else {
            throw SimulationError.cannotTrigger(
                name: name, reason: "not one iapsim can trigger; 'iapsim trigger --list' lists them")
        }
        let before = try store.read().outbox.count
        func fail(_ reason: String) -> SimulationError { .cannotTrigger(name: wanted, reason: reason) }
        func product(_ matching: (Product) -> Bool, _ what: String) throws -> Product {
            if let productID {
                guard let product = catalog.product(productID), matching(product) else {
                    throw fail("\(productID) is not \(what) of the catalog")
                }
                return product
            }
            guard let product = catalog.products.first(where: matching) else { throw fail("the catalog has no \(what)") }
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
                    if let value = overrides[key] { _ = try? setSetting(key, to: value) } else { _ = try? resetSettings(key) }
                }
            }
            try body()
        }
        let isSubscription = { (product: Product) in product.subscription != nil }
        switch wanted {
        case "SUBSCRIBED/INITIAL_BUY":
            let status = try status()
            let fresh = try product(
                { product in
                    guard let group = product.subscription?.groupID else { return false }
                    return status.isEligibleForIntroOffer(group: group)
                }, "a subscription in a group the account never subscribed in (try 'iapsim reset --yes')")
            try buy(fresh)
        case "SUBSCRIBED/RESUBSCRIBE":
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            if try chain(subscription) == nil { try buy(subscription) }
            if let current = try chain(subscription), current.state != .expired {
                _ = try expireSubscription(current.productID)
            }
            try buy(subscription)
        case "DID_RENEW":
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            _ = try subscribed(subscription)
            _ = try renewSubscription(subscription.id)
        case "DID_FAIL_TO_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "EXPIRED/BILLING_RETRY",
            "DID_RENEW/BILLING_RECOVERY":
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            let grace = wanted != "DID_FAIL_TO_RENEW" && wanted != "EXPIRED/BILLING_RETRY"
            try withBillingIssues(grace: grace) {
                let current = try subscribed(subscription)
                try moveClock(past: current.expirationDate)
                let failing = try chain(subscription)
                switch wanted {
                case "GRACE_PERIOD_EXPIRED": try moveClock(past: failing?.gracePeriodExpirationDate)
                case "EXPIRED/BILLING_RETRY":
                    let info = try store.read().simulation.renewals.first { $0.originalID == current.originalID }
                    try moveClock(past: info?.billingRetryEndDate)
                case "DID_RENEW/BILLING_RECOVERY": _ = try resolve(current.originalID, in: catalog)
                default: break
                }
            }
        case "EXPIRED/VOLUNTARY":
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            let current = try subscribed(subscription)
            if current.willAutoRenew { _ = try cancelSubscription(current.productID) }
            try moveClock(past: current.expirationDate)
        case "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED":
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            let current = try subscribed(subscription)
            if current.willAutoRenew { _ = try cancelSubscription(current.productID) }
            if wanted.hasSuffix("ENABLED") { _ = try resumeSubscription(current.productID) }
        case "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_CHANGE_RENEWAL_PREF":
            // Two levels of one group: level 1 is the highest (Apple, "Ranking subscriptions
            // within the group").
            let subscriptions = catalog.products.filter(isSubscription)
            let pair = subscriptions.lazy.compactMap { first -> (Product, Product)? in
                guard let group = first.subscription?.groupID, let level = first.subscription?.groupLevel,
                    let other = subscriptions.first(where: {
                        $0.subscription?.groupID == group && ($0.subscription?.groupLevel ?? level) < level
                    })
                else { return nil }
                return (first, other)  // (lower, higher)
            }.first { productID == nil || $0.0.id == productID || $0.1.id == productID }
            guard let (lower, higher) = pair else { throw fail("the catalog has no group with two levels") }
            if wanted.hasSuffix("UPGRADE") {
                _ = try subscribed(lower)
                try buy(higher)
            } else {
                _ = try subscribed(higher)
                try buy(lower)
                if wanted == "DID_CHANGE_RENEWAL_PREF" { try buy(higher) }  // back to the current plan
            }
        case "REFUND":
            let target = try product({ _ in true }, "a product")
            try buy(target)
            guard let id = try history(productID: target.id).entries().last(where: { $0.state != .revoked })?.transaction.id
            else { throw fail("no transaction of \(target.id) to refund") }
            _ = try refund(id, reason: .other)
        case "CONSUMPTION_REQUEST", "REFUND_DECLINED", "REFUND_REVERSED":
            // A consumable: Apple asks for consumption information when its refund is requested.
            let target = try product({ $0.type == .consumable }, "a consumable")
            try buy(target)
            guard let id = try history(productID: target.id).entries().last(where: { $0.state != .revoked })?.transaction.id
            else { throw fail("no transaction of \(target.id)") }
            if wanted == "REFUND_REVERSED" {
                _ = try refund(id, reason: .other)
                _ = try reverseRefund(id)
            } else {
                _ = try requestRefund(id, reason: .unintendedPurchase)
                if wanted == "REFUND_DECLINED" { _ = try declineRefund(id) }
            }
        case "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED", "EXPIRED/PRICE_INCREASE":
            let subscription = try product(isSubscription, "an auto-renewable subscription")
            let current = try subscribed(subscription)
            if !current.willAutoRenew { _ = try resumeSubscription(current.productID) }
            let price = current.renewalInfo.nextRenewalPrice + 1
            _ = try increasePrice(current.autoRenewProductID, to: price, requiresConsent: true)
            switch wanted {
            case "PRICE_INCREASE/ACCEPTED": _ = try consentToPriceIncrease(current.autoRenewProductID)
            case "EXPIRED/PRICE_INCREASE":
                _ = try declinePriceIncrease(current.autoRenewProductID)
                try moveClock(past: try chain(subscription)?.expirationDate)
            default: break
            }
        case "OFFER_REDEEMED/RESUBSCRIBE":
            // A lapsed subscriber takes a win-back offer, or a promotional one signed with the
            // catalog's key when it has one.
            let subscription = try product(
                { !($0.subscription?.winBackOffers.filter(\.isEligible).isEmpty ?? true)
                    || !($0.subscription?.promotionalOffers.isEmpty ?? true) }, "a subscription with a win-back or promotional offer")
            if try chain(subscription) == nil { try buy(subscription) }
            if let current = try chain(subscription), current.state != .expired {
                _ = try expireSubscription(current.productID)
            }
            var request: OfferRequest
            if let winBack = subscription.subscription?.winBackOffers.first(where: \.isEligible), let id = winBack.id {
                request = .offer(id: id, signature: nil)
            } else if let id = subscription.subscription?.promotionalOffers.first?.id {
                let signature = try catalog.store.offerSigningKey.map { key in
                    try PromotionalOfferSignature.sign(
                        with: key, bundleID: try settings().bundleID, productID: subscription.id, offerID: id,
                        appAccountToken: nil, nonce: UUID(),
                        timestamp: Int64((realNow().timeIntervalSince1970 * 1000).rounded(.down)))
                }
                request = .offer(id: id, signature: signature)
            } else {
                throw fail("\(subscription.id) has no offer to redeem")
            }
            let receipt = try purchase(
                try quote(PurchaseRequest(made: subscription.id, quantity: .one, offer: request), in: catalog),
                in: catalog, outcome: .success)
            if case .failed(let error) = receipt.result { throw fail("the offer was refused: \(error.qualifiedName)") }
        case "OFFER_REDEEMED":
            // A subscriber redeems an offer code for the plan it has: it starts at the next renewal.
            let subscription = try product(
                { $0.subscription?.offerCodes.contains { $0.eligibility.isEmpty || $0.eligibility.contains(.existing) } ?? false },
                "a subscription with an offer code for existing subscribers")
            let code = subscription.subscription?.offerCodes.first {
                $0.eligibility.isEmpty || $0.eligibility.contains(.existing)
            }
            guard let id = code?.id else { throw fail("\(subscription.id) has no offer code") }
            _ = try subscribed(subscription)
            let receipt = try purchase(
                try quote(PurchaseRequest(made: subscription.id, quantity: .one, offer: .code(id: id)), in: catalog),
                in: catalog, outcome: .success)
            if case .failed(let error) = receipt.result { throw fail("the code was refused: \(error.qualifiedName)") }
        case "REVOKE":
            let shared = try product(
                { $0.familyShareable && $0.type != .consumable }, "a family-shareable product (familyShareable)")
            let transaction = try shareFromFamily(PurchaseRequest(made: shared.id, quantity: .one), in: catalog)
            _ = try revokeFamilySharing(transaction.id)
        case "ONE_TIME_CHARGE":
            guard try settings().oneTimeChargeNotifications else {
                throw fail("one-time-charge-notifications is false ('iapsim settings set one-time-charge-notifications true')")
            }
            try buy(try product({ $0.subscription == nil }, "a consumable, non-consumable or non-renewing subscription"))
        default:  // "TEST"
            _ = try sendTestNotification()
        }
        let records = try notifications()
        return Array(records.suffix(max(0, records.count - before)).map(\.notification))
    }
}
