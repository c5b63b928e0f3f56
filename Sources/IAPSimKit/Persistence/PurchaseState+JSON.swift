import Foundation
import IAPSimJSON

// The state's JSON form, by hand: `purchases.json` (indented) and journal lines (compact).
// Keys are written in a fixed order; reading accepts any order, ignores unknown keys, and
// treats absent optional keys as nil, so files from iapsim's schema 1 (written by
// JSONEncoder with sorted keys) read as well.

extension Transaction {
    /// StoreKit 2's field names, `id` first.
    public var json: JSONValue { json(price: price.plainString) }

    /// The same, with the price already spelled as `plainString` spells it: a listing spells
    /// each distinct price once (spelling a `Decimal` takes a microsecond).
    public func json(price text: String) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .int(id)),
            ("originalID", .int(originalID)),
            ("productID", .string(productID)),
            ("productType", .string(productType.rawValue)),
            ("purchaseDate", .date(purchaseDate)),
            ("originalPurchaseDate", .date(originalPurchaseDate)),
            ("purchasedQuantity", .int(purchasedQuantity)),
            ("expirationDate", .date(expirationDate)),
            ("revocationDate", .date(revocationDate)),
            ("revocationReason", .optional(revocationReason?.rawValue)),
        ]
        // Written only for a prorated refund, so other lines read as before.
        if let revocationPercentage {
            members.append(("revocationPercentage", .string(revocationPercentage.plainString)))
        }
        members += [
            ("subscriptionGroupID", .optional(subscriptionGroupID)),
            ("isUpgraded", .bool(isUpgraded)),
            ("reason", .string(reason.rawValue)),
        ]
        if let offerType {
            members.append(("offerType", .string(offerType.rawValue)))
            members.append(("offerPaymentMode", .optional(offerPaymentMode?.rawValue)))
            if let offerID { members.append(("offerID", .string(offerID))) }
            if let offerPeriod { members.append(("offerPeriod", .string(offerPeriod.iso8601))) }
        }
        members += [
            ("price", .string(text)),
            ("currency", .string(currency)),
            ("storefrontCountryCode", .string(storefrontCountryCode)),
        ]
        if let appAccountToken { members.append(("appAccountToken", .string(appAccountToken))) }
        if let billingPlanType { members.append(("billingPlanType", .string(billingPlanType.rawValue))) }
        if let commitmentInfo {
            members.append(
                (
                    "commitmentInfo",
                    .object([
                        ("billingPeriodNumber", .int(commitmentInfo.billingPeriodNumber)),
                        ("totalBillingPeriods", .int(commitmentInfo.totalBillingPeriods)),
                        ("expirationDate", .date(commitmentInfo.expirationDate)),
                        ("price", .string(commitmentInfo.price.plainString)),
                    ])
                ))
        }
        // Written only when shared, so the lines of bought transactions read as before schema 4.
        if ownershipType == .familyShared { members.append(("ownershipType", .string(ownershipType.rawValue))) }
        if let deletionDate { members.append(("deletionDate", .date(deletionDate))) }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            id: try r.required("id").uint64(), originalID: try r.required("originalID").uint64(),
            productID: try r.required("productID").string(),
            productType: try r.required("productType").raw(ProductType.self),
            purchaseDate: try r.required("purchaseDate").date(),
            originalPurchaseDate: try r.required("originalPurchaseDate").date(),
            purchasedQuantity: try r.optional("purchasedQuantity")?.positiveInt() ?? 1,
            expirationDate: try r.optional("expirationDate")?.date(),
            revocationDate: try r.optional("revocationDate")?.date(),
            revocationReason: try r.optional("revocationReason")?.raw(RevocationReason.self),
            subscriptionGroupID: try r.optional("subscriptionGroupID")?.string(),
            isUpgraded: try r.optional("isUpgraded")?.bool() ?? false,
            reason: try r.optional("reason")?.raw(Reason.self) ?? .purchase,
            price: try r.required("price").decimal(), currency: try r.required("currency").string(),
            storefrontCountryCode: try r.required("storefrontCountryCode").string())
        revocationPercentage = try r.optional("revocationPercentage")?.decimal()
        offerType = try r.optional("offerType")?.raw(OfferType.self)
        offerPaymentMode = try r.optional("offerPaymentMode")?.raw(SubscriptionOffer.PaymentMode.self)
        offerID = try r.optional("offerID")?.string()
        offerPeriod = try r.optional("offerPeriod")?.period()
        appAccountToken = try r.optional("appAccountToken")?.string()
        billingPlanType = try r.optional("billingPlanType")?.raw(BillingPlanType.self)
        commitmentInfo = try r.optional("commitmentInfo").map { c throws(Reader.Failure) in
            CommitmentInfo(
                billingPeriodNumber: try c.required("billingPeriodNumber").positiveInt(),
                totalBillingPeriods: try c.required("totalBillingPeriods").positiveInt(),
                expirationDate: try c.required("expirationDate").date(), price: try c.required("price").decimal())
        }
        ownershipType = try r.optional("ownershipType")?.raw(OwnershipType.self) ?? .purchased
        deletionDate = try r.optional("deletionDate")?.date()
    }
}

extension PendingPurchase {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .int(id)), ("productID", .string(productID)), ("productType", .string(productType.rawValue)),
            ("purchasedQuantity", .int(purchasedQuantity)), ("reason", .string(reason.rawValue)),
            ("requestDate", .date(requestDate)),
        ]
        if let appAccountToken { members.append(("appAccountToken", .string(appAccountToken))) }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        let quantity: Reader
        if let current = try r.optional("purchasedQuantity") {
            quantity = current
        } else {
            quantity = try r.required("quantity")
        }
        self.init(
            id: try r.required("id").uint64(), productID: try r.required("productID").string(),
            productType: try r.required("productType").raw(ProductType.self),
            // Written as `quantity` before 0.2.
            purchasedQuantity: try quantity.positiveInt(),
            reason: try r.required("reason").raw(Reason.self), requestDate: try r.required("requestDate").date())
        appAccountToken = try r.optional("appAccountToken")?.string()
    }
}

extension RenewalInfo {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("originalID", .int(originalID)), ("subscriptionGroupID", .string(subscriptionGroupID)),
            ("currentProductID", .string(currentProductID)), ("autoRenewProductID", .string(autoRenewProductID)),
            ("willAutoRenew", .bool(willAutoRenew)), ("autoRenewPeriod", .string(autoRenewPeriod.iso8601)),
            ("autoRenewPrice", .string(autoRenewPrice.plainString)), ("currency", .string(currency)),
            ("storefrontCountryCode", .string(storefrontCountryCode)),
            ("introductoryPeriodsRemaining", .int(introductoryPeriodsRemaining)),
            ("introductoryPrice", .optional(introductoryPrice?.plainString)),
            ("introductoryPeriod", .optional(introductoryPeriod?.iso8601)),
            // The phase in the fields it was kept in before it was one value (see `StoredPhase`).
            ("isInBillingRetry", .bool(isInBillingRetry)), ("billingRetryEndDate", .date(billingRetryEndDate)),
            ("gracePeriodExpirationDate", .date(gracePeriodExpirationDate)),
            ("expirationReason", .optional(expirationReason?.rawValue)),
            ("expirationNotified", .bool(phase.hasEnded)),
            ("offerType", .optional(offerType?.rawValue)), ("offerID", .optional(offerID)),
            ("pendingOffer", pendingOffer.map(\.json) ?? .null),
            (
                "commitment",
                commitment.map {
                    .object([
                        ("period", .string($0.period.iso8601)), ("endDate", .date($0.endDate)), ("paid", .int($0.paid)),
                        ("price", .optional($0.price?.plainString)),
                    ])
                } ?? .null
            ),
        ]
        if let start = recentSubscriptionStartDate { members.append(("recentSubscriptionStartDate", .date(start))) }
        if cancelledInGracePeriod { members.append(("cancelledInGracePeriod", .bool(true))) }
        if !extensions.isEmpty {
            members.append(
                (
                    "extensions",
                    .array(
                        extensions.map {
                            .object([
                                ("requestIdentifier", .string($0.requestIdentifier)), ("date", .date($0.date)),
                                ("webOrderLineItemID", .string($0.webOrderLineItemID)),
                                ("effectiveDate", .date($0.effectiveDate)),
                            ])
                        })
                ))
        }
        if let increase = priceIncrease {
            members.append(
                (
                    "priceIncrease",
                    .object([
                        ("newPrice", .string(increase.newPrice.plainString)),
                        ("requiresConsent", .bool(increase.requiresConsent)),
                        ("status", .string(increase.status.rawValue)), ("date", .date(increase.date)),
                    ])
                ))
        }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            originalID: try r.required("originalID").uint64(),
            subscriptionGroupID: try r.required("subscriptionGroupID").string(),
            currentProductID: try r.required("currentProductID").string(),
            autoRenewProductID: try r.required("autoRenewProductID").string(),
            willAutoRenew: try r.required("willAutoRenew").bool(),
            autoRenewPeriod: try r.required("autoRenewPeriod").period(),
            autoRenewPrice: try r.required("autoRenewPrice").decimal(), currency: try r.required("currency").string(),
            storefrontCountryCode: try r.required("storefrontCountryCode").string(),
            introductoryPeriodsRemaining: try r.optional("introductoryPeriodsRemaining")?.nonNegativeInt() ?? 0,
            introductoryPrice: try r.optional("introductoryPrice")?.decimal(),
            introductoryPeriod: try r.optional("introductoryPeriod")?.period(),
            phase: try StoredPhase(r).phase,
            expirationReason: try r.optional("expirationReason")?.raw(ExpirationReason.self))
        offerType = try r.optional("offerType")?.raw(Transaction.OfferType.self)
        offerID = try r.optional("offerID")?.string()
        pendingOffer = try r.optional("pendingOffer").map(RenewalInfo.PendingOffer.init)
        commitment = try r.optional("commitment").map { c throws(Reader.Failure) in
            RenewalInfo.Commitment(
                period: try c.required("period").period(), endDate: try c.required("endDate").date(),
                paid: try c.required("paid").positiveInt(), price: try c.optional("price")?.decimal())
        }
        recentSubscriptionStartDate = try r.optional("recentSubscriptionStartDate")?.date()
        cancelledInGracePeriod = try r.optional("cancelledInGracePeriod")?.bool() ?? false
        extensions =
            try r.optional("extensions")?.array { e throws(Reader.Failure) in
                RenewalExtension(
                    requestIdentifier: try e.required("requestIdentifier").string(),
                    date: try e.required("date").date(),
                    webOrderLineItemID: try e.required("webOrderLineItemID").string(),
                    effectiveDate: try e.required("effectiveDate").date())
            } ?? []
        priceIncrease = try r.optional("priceIncrease").map { increase throws(Reader.Failure) in
            PriceIncrease(
                newPrice: try increase.required("newPrice").decimal(),
                requiresConsent: try increase.required("requiresConsent").bool(),
                status: try increase.required("status").raw(PriceIncrease.Status.self),
                date: try increase.required("date").date())
        }
    }
}

/// A renewal's phase as the state file keeps it: the four fields it was kept in before it was
/// one value, so files of every schema read, and iapsim before the phase reads this one's.
/// The two forms are apart: `RenewalInfo.Phase` may change without the file changing.
///
/// `revoked` is written as `expired` (both ended and notified); the snapshot tells them apart
/// by the chain's latest transaction (`PurchaseState.init`).
struct StoredPhase {
    var isInBillingRetry: Bool
    var billingRetryEndDate: Date?
    var gracePeriodExpirationDate: Date?
    var expirationNotified: Bool

    init(_ r: Reader) throws(Reader.Failure) {
        isInBillingRetry = try r.optional("isInBillingRetry")?.bool() ?? false
        billingRetryEndDate = try r.optional("billingRetryEndDate")?.date()
        gracePeriodExpirationDate = try r.optional("gracePeriodExpirationDate")?.date()
        expirationNotified = try r.optional("expirationNotified")?.bool() ?? false
    }

    /// A grace period date outside billing retry was never written (each step that left
    /// billing retry cleared it), and means nothing there.
    var phase: RenewalInfo.Phase {
        if isInBillingRetry {
            guard let grace = gracePeriodExpirationDate else { return .inBillingRetry(ends: billingRetryEndDate) }
            return .inGracePeriod(expires: grace, retryEnds: billingRetryEndDate)
        }
        return expirationNotified ? .expired : .active
    }
}

extension RenewalInfo.PendingOffer {
    var json: JSONValue {
        .object([
            ("type", .string(type.rawValue)), ("id", .optional(id)), ("paymentMode", .string(paymentMode.rawValue)),
            ("period", .string(period.iso8601)), ("periodCount", .int(periodCount)),
            ("price", .string(price.plainString)),
        ])
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            type: try r.required("type").raw(Transaction.OfferType.self), id: try r.optional("id")?.string(),
            paymentMode: try r.required("paymentMode").raw(SubscriptionOffer.PaymentMode.self),
            period: try r.required("period").period(), periodCount: try r.required("periodCount").positiveInt(),
            price: try r.required("price").decimal())
    }
}

extension SimulationState {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            // Each set key's value as text, by key: the form `settings set` takes.
            (
                "settings",
                .object(
                    settings.keys.sorted { $0.rawValue < $1.rawValue }.map {
                        ($0.rawValue, .string(settings.values.text(for: $0)))
                    })
            )
        ]
        if let clock {
            members.append(
                (
                    "clock",
                    .object([
                        ("base", .string(String(clock.base.timeIntervalSince1970))),
                        ("anchor", .string(String(clock.anchor.timeIntervalSince1970))),
                        ("frozen", .bool(clock.frozen)),
                        ("reads", .date(clock.base)),
                    ])
                ))
        }
        members += [
            ("pending", .array(pending.map(\.json))),
            ("expiredRequests", .array(expiredRequests.map(\.json))),
            ("undeliveredTransactionIDs", .array(undeliveredTransactionIDs.map { .int($0) })),
            ("unfinishedTransactionIDs", .array(unfinishedTransactionIDs.map { .int($0) })),
            ("renewals", .array(renewals.map(\.json))),
            ("refundRequests", .array(refundRequests.map(\.json))),
        ]
        if !ungrantedTransactionIDs.isEmpty {
            members.append(("ungrantedTransactionIDs", .array(ungrantedTransactionIDs.map { .int($0) })))
        }
        if !usedOfferNonces.isEmpty {
            members.append(
                (
                    "usedOfferNonces",
                    .array(
                        usedOfferNonces.map {
                            .object([("nonce", .string($0.nonce)), ("timestamp", .number(String($0.timestamp)))])
                        })
                ))
        }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init()
        // Each setting is checked as it is read: an unknown key or a value `settings set` would
        // refuse makes the file corrupt, never a silent default.
        let texts = try r.optional("settings")?.dictionary { value throws(Reader.Failure) in try value.string() }
        for (name, value) in texts ?? [:] {
            guard let key = SettingKey(rawValue: name) else {
                throw Reader.Failure(message: "simulation.settings.\(name): not a setting iapsim knows")
            }
            do {
                try settings.set(key, text: value)
            } catch {
                // Before each API took only the errors Apple allows it, any error was accepted
                // for any API: a state from then keeps its error until it is set again.
                if StoreKitTestAPI(settingKey: key) != nil, let legacy = SimulatedError.named(value) {
                    settings.set(key) { $0.setSimulatedError(legacy, for: key) }
                    continue
                }
                throw Reader.Failure(message: "simulation.settings.\(name): \(error.errorDescription ?? "invalid")")
            }
        }
        clock = try r.optional("clock").map { clock throws(Reader.Failure) in
            // Seconds since 1970 as text, to keep the fraction a date string would drop.
            func seconds(_ key: String) throws(Reader.Failure) -> Date {
                let field = try clock.required(key)
                guard let value = Double(try field.string()) else { return try field.date() }
                let date = Date(timeIntervalSince1970: value)
                guard ISO8601Date.isRepresentable(date) else {
                    throw Reader.Failure(message: "simulation.clock.\(key): \(value) is not a time the state holds")
                }
                return date
            }
            return SimulatedClock(
                base: try seconds("base"), anchor: try seconds("anchor"), frozen: try clock.required("frozen").bool())
        }
        pending = try r.optional("pending")?.array { item throws(Reader.Failure) in try PendingPurchase(item) } ?? []
        expiredRequests =
            try r.optional("expiredRequests")?.array { item throws(Reader.Failure) in try PendingPurchase(item) } ?? []
        undeliveredTransactionIDs =
            try r.optional("undeliveredTransactionIDs")?.array { id throws(Reader.Failure) in try id.uint64() } ?? []
        unfinishedTransactionIDs =
            try r.optional("unfinishedTransactionIDs")?.array { id throws(Reader.Failure) in try id.uint64() } ?? []
        ungrantedTransactionIDs =
            try r.optional("ungrantedTransactionIDs")?.array { id throws(Reader.Failure) in try id.uint64() } ?? []
        renewals = try r.optional("renewals")?.array { item throws(Reader.Failure) in try RenewalInfo(item) } ?? []
        refundRequests =
            try r.optional("refundRequests")?.array { item throws(Reader.Failure) in try RefundRequest(item) } ?? []
        usedOfferNonces =
            try r.optional("usedOfferNonces")?.array { item throws(Reader.Failure) in
                let timestamp = try item.required("timestamp")
                guard case .number(let text) = timestamp.value, let milliseconds = Int64(text) else {
                    throw Reader.Failure(message: "\(timestamp.place.text): expected milliseconds since 1970")
                }
                return OfferNonce(nonce: try item.required("nonce").string(), timestamp: milliseconds)
            } ?? []
    }
}

extension RefundRequest {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("transactionID", .int(transactionID)), ("productID", .string(productID)),
            ("requestDate", .date(requestDate)),
        ]
        if let reason { members.append(("reason", .string(reason.rawValue))) }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            transactionID: try r.required("transactionID").uint64(), productID: try r.required("productID").string(),
            requestDate: try r.required("requestDate").date(), reason: try r.optional("reason")?.raw(Reason.self))
    }
}

extension PurchaseState {
    /// The snapshot: the app's record first, as the user-visible record of what was bought.
    public var json: JSONValue {
        var accountMembers: [(String, JSONValue)] = [("nextTransactionID", .int(account.nextTransactionID))]
        if account.customerNumber != 0 { accountMembers.append(("customerNumber", .int(account.customerNumber))) }
        accountMembers += [
            ("transactionCount", .int(account.transactionCount)), ("journalLength", .int(account.journalLength)),
        ]
        if let id = account.appTransactionID { accountMembers.append(("appTransactionID", .string(id))) }
        if let date = account.firstUseDate { accountMembers.append(("firstUseDate", .date(date))) }
        accountMembers.append(("current", .array(account.current.map(\.json))))
        let appRecord = JSONValue.object([
            ("purchasedProductIdentifiers", .array(app.purchasedProductIdentifiers.map(JSONValue.string))),
            ("consumables", .object(app.consumables.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
        ])
        return .object([
            ("schemaVersion", .int(schemaVersion)),
            ("app", appRecord),
            ("account", .object(accountMembers)),
            ("simulation", simulation.json),
            (
                "notifications",
                .object([("count", .int(outbox.count)), ("journalLength", .int(outbox.journalLength))])
            ),
        ])
    }

    init(_ r: Reader) throws(Reader.Failure) {
        let app = try r.required("app")
        let account = try r.required("account")
        var record = Account(nextTransactionID: try account.required("nextTransactionID").uint64())
        if let legacy = try account.optional("transactions") {
            // Schema 1: the whole history inline. It moves to the journal on the next write.
            for item in try legacy.array({ item throws(Reader.Failure) in try Transaction(item) }) {
                do {
                    try record.record(item, isNew: true)
                } catch {
                    throw Reader.Failure(message: error.detail)
                }
            }
        } else {
            record.transactionCount = try account.required("transactionCount").nonNegativeInt()
            record.journalLength = try account.required("journalLength").uint64()
            record.appTransactionID = try account.optional("appTransactionID")?.string()
            record.firstUseDate = try account.optional("firstUseDate")?.date()
            record.customerNumber = try account.optional("customerNumber")?.uint64() ?? 0
            record.restore(
                current: try account.required("current").array { item throws(Reader.Failure) in try Transaction(item) })
        }
        self.init(
            account: record,
            app: AppRecord(
                purchasedProductIdentifiers: try app.required("purchasedProductIdentifiers").array {
                    id throws(Reader.Failure) in try id.string()
                },
                consumables: try app.required("consumables").dictionary { count throws(Reader.Failure) in
                    try count.nonNegativeInt()
                }),
            simulation: try r.optional("simulation").map { simulation throws(Reader.Failure) in
                try SimulationState(simulation)
            } ?? SimulationState())
        // A revoked chain is stored as ended; its latest transaction says it was revoked.
        for index in simulation.renewals.indices where simulation.renewals[index].phase == .expired {
            if self.account.chainLatest(simulation.renewals[index].originalID)?.revocationDate != nil {
                simulation.renewals[index].phase = .revoked
            }
        }
        schemaVersion = try r.required("schemaVersion").int()
        if schemaVersion < 3 {
            // Before schema 3 every repeated Ask to Buy request was a pending purchase of its
            // own; StoreKit keeps one per product.
            simulation.pending = PendingPurchase.consolidated(simulation.pending)
        }
        if schemaVersion < 4 {
            // Schema 3 → 4 (refund requests, price increases): a file before 4 has neither, and
            // reads as having none; nothing it holds changes meaning.
            simulation.refundRequests = []
        }
        if let notifications = try r.optional("notifications") {
            outbox.count = try notifications.required("count").nonNegativeInt()
            outbox.journalLength = try notifications.required("journalLength").uint64()
        }
    }
}
