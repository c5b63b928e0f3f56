import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// Look Up Order ID (Apple, "Look Up Order ID", "OrderLookupResponse").
@Suite struct OrderLookupAPITests {
    @Test func anUnknownOrderIsStatusOneWithoutSignedTransactions() throws {
        let h = try ServerAPIHarness(environment: .production)
        try h.buy("fx.coins")
        let answer = h.call("GET", "inApps/v1/lookup/MNOSUCHORD")
        #expect(answer.status == 200)
        #expect(answer.body == .object([("status", .int(1))]))
        #expect(answer.body?["signedTransactions"] == nil)
    }

    @Test func anOrderAnswersItsOwnTransaction() throws {
        let h = try ServerAPIHarness(environment: .production)
        try h.buy("fx.coins")
        let monthly = try h.buy("fx.plus.monthly")
        h.clock.advance(days: 40)
        _ = try h.session.status()  // renews up to now
        let renewal = try #require(try h.session.store.chain(monthly.originalID).last)
        #expect(renewal.reason == .renewal)
        let answer = h.call("GET", "inApps/v1/lookup/\(renewal.orderID)")
        #expect(answer.body?["status"] == .int(0))
        let signed = try #require(answer.body?["signedTransactions"]?.arrayValue)
        let ids = try signed.map { try ServerAPIHarness.payload($0.stringValue)["transactionId"] }
        #expect(ids == [.string(String(renewal.id))])
    }

    /// "This endpoint isn't available in the sandbox environment": no order is valid there.
    @Test func theSandboxHasNoOrders() throws {
        let h = try ServerAPIHarness(environment: .sandbox)
        let coins = try h.buy("fx.coins")
        let answer = h.call("GET", "inApps/v1/lookup/\(coins.orderID)")
        #expect(answer.status == 200 && answer.body == .object([("status", .int(1))]))
        // The session's environment setting decides when the server names none.
        let unset = try ServerAPIHarness()
        let bought = try unset.buy("fx.coins")
        #expect(unset.call("GET", "inApps/v1/lookup/\(bought.orderID)").body?["status"] == .int(1))
        _ = try unset.session.setSetting(.environment, to: "Production")
        #expect(unset.call("GET", "inApps/v1/lookup/\(bought.orderID)").body?["status"] == .int(0))
    }
}

/// Get Transaction History (Apple, "Get Transaction History", "Get Transaction History V1").
@Suite struct TransactionHistoryAPITests {
    /// The transaction ids of a history answer's signed transactions.
    static func ids(_ answer: ServerAPIHarness.Answer) throws -> [String] {
        try (answer.body?["signedTransactions"]?.arrayValue ?? []).map {
            try #require(try ServerAPIHarness.payload($0.stringValue)["transactionId"]?.stringValue)
        }
    }

    /// V1 "returns … consumable in-app purchases if the transaction is refunded or revoked, or
    /// if the app hasn't finished processing the transaction"; v2 returns them all.
    @Test func versionOneLeavesOutFinishedConsumables() throws {
        let h = try ServerAPIHarness()
        try h.buy("fx.coins")  // 1: finished
        try h.buy("fx.coins")  // 2: finished, then refunded
        _ = try h.session.setSetting(.finishTransactions, to: "manual")
        try h.buy("fx.coins")  // 3: unfinished
        try h.buy("fx.levels")  // 4
        _ = try h.session.refund(2, reason: .other)
        #expect(try Self.ids(h.call("GET", "inApps/v1/history/1")) == ["3", "4", "2"])
        #expect(try Self.ids(h.call("GET", "inApps/v2/history/1")) == ["1", "3", "4", "2"])
        _ = try h.session.finish(3)
        #expect(try Self.ids(h.call("GET", "inApps/v1/history/4")) == ["4", "2"])
    }

    /// A backend's sync: the whole history, then with the stored revision only what changed.
    @Test func aRefundAfterAFullSyncComesBackOnTheNextIncrementalCall() throws {
        let h = try ServerAPIHarness()
        for _ in 0..<25 { try h.buy("fx.coins") }
        let first = h.call("GET", "inApps/v2/history/1")
        let revision = try #require(first.body?["revision"]?.stringValue)
        let second = h.call("GET", "inApps/v2/history/1", query: [("revision", revision)])
        #expect(second.body?["hasMore"] == .bool(false))
        let synced = try #require(second.body?["revision"]?.stringValue)
        _ = try h.session.refund(3, reason: .developerIssue)
        let next = h.call("GET", "inApps/v2/history/1", query: [("revision", synced)])
        let signed = try #require(next.body?["signedTransactions"]?.arrayValue)
        #expect(signed.count == 1)
        let refunded = try ServerAPIHarness.payload(signed.first?.stringValue)
        #expect(refunded["transactionId"] == .string("3") && refunded["revocationDate"] != nil)
        // Newest change first: the refund leads the descending history.
        #expect(try Self.ids(h.call("GET", "inApps/v2/history/1", query: [("sort", "DESCENDING")])).first == "3")
    }
}

/// Apple, "anyTransactionId": the endpoints that take any transaction identifier of the
/// customer take their `appTransactionId` too; the others answer AppTransactionIdNotSupported.
@Suite struct AppTransactionIDAPITests {
    @Test func everyAnyTransactionIdEndpointTakesTheAppTransactionId() throws {
        let h = try ServerAPIHarness()
        try h.buy("fx.plus.yearly")
        try h.buy("fx.coins")
        _ = try h.session.refund(2, reason: .other)
        let app = try #require(try h.session.store.read().account.appTransactionID)
        for version in ["v1", "v2"] {
            let history = h.call("GET", "inApps/\(version)/history/\(app)")
            #expect(history.status == 200, "\(version): \(String(describing: history.body))")
            #expect(try TransactionHistoryAPITests.ids(history) == ["1", "2"])
        }
        let statuses = h.call("GET", "inApps/v1/subscriptions/\(app)")
        #expect(statuses.status == 200 && statuses.body?["data"]?.arrayValue?.count == 1)
        let refunds = h.call("GET", "inApps/v2/refund/lookup/\(app)")
        #expect(refunds.status == 200 && refunds.body?["signedTransactions"]?.arrayValue?.count == 1)
        let appTransaction = h.call("GET", "inApps/v1/transactions/appTransactions/\(app)")
        let info = try ServerAPIHarness.payload(appTransaction.body?["signedAppTransactionInfo"]?.stringValue)
        #expect(info["appTransactionId"] == .string(app))
        // Another customer's appTransactionId names no transaction here.
        #expect(h.call("GET", "inApps/v2/history/700000000000000001").errorCode == 4_040_010)
    }

    @Test func endpointsThatTakeATransactionIdRefuseTheAppTransactionId() throws {
        let h = try ServerAPIHarness()
        try h.buy("fx.plus.yearly")
        let app = try #require(try h.session.store.read().account.appTransactionID)
        #expect(h.call("GET", "inApps/v1/transactions/\(app)").errorCode == 4_000_048)
        let consumption = JSONValue.object([
            ("customerConsented", .bool(true)), ("deliveryStatus", .string("DELIVERED")),
            ("sampleContentProvided", .bool(false)),
        ])
        #expect(h.call("PUT", "inApps/v2/transactions/consumption/\(app)", body: consumption).errorCode == 4_000_048)
    }
}

/// Extend a Subscription Renewal Date and its mass form (Apple, "Extend a Subscription
/// Renewal Date", "SubscriptionExtensionIneligibleError", "SubscriptionMaxExtensionError",
/// "FamilySharedSubscriptionExtensionIneligibleError", "Extend Subscription Renewal Dates for
/// All Active Subscribers").
@Suite struct RenewalExtensionAPITests {
    static func body(days: Int = 5, _ identifier: String) -> JSONValue {
        .object([
            ("extendByDays", .int(days)), ("extendReasonCode", .int(1)), ("requestIdentifier", .string(identifier)),
        ])
    }

    @Test func aThirdExtensionWithin365DaysIsRefused() throws {
        let h = try ServerAPIHarness()
        let bought = try h.buy("fx.plus.yearly")
        #expect(h.call("PUT", "inApps/v1/subscriptions/extend/1", body: Self.body("a")).status == 200)
        h.clock.advance(days: 30)
        #expect(h.call("PUT", "inApps/v1/subscriptions/extend/1", body: Self.body("b")).status == 200)
        h.clock.advance(days: 30)
        let third = h.call("PUT", "inApps/v1/subscriptions/extend/1", body: Self.body("c"))
        #expect(third.status == 403 && third.errorCode == 4_030_005)
        let latest = try #require(try h.session.store.transaction(bought.id))
        #expect(latest.expirationDate == bought.expirationDate?.addingTimeInterval(10 * 86_400))
    }

    /// A retried request (the same `requestIdentifier`) answers as the first and extends once.
    @Test func aRepeatedRequestIdentifierExtendsOnce() throws {
        let h = try ServerAPIHarness()
        let bought = try h.buy("fx.plus.yearly")
        let first = h.call("PUT", "inApps/v1/subscriptions/extend/1", body: Self.body("same"))
        let again = h.call("PUT", "inApps/v1/subscriptions/extend/1", body: Self.body("same"))
        #expect(first.status == 200 && again.status == 200)
        #expect(first.body?["effectiveDate"] != nil && again.body?["effectiveDate"] == first.body?["effectiveDate"])
        let latest = try #require(try h.session.store.transaction(bought.id))
        #expect(latest.expirationDate == bought.expirationDate?.addingTimeInterval(5 * 86_400))
        #expect(try h.session.notifications().filter { $0.notification.kind == .renewalExtended }.count == 1)
        // It counted once: one more extension is allowed, then no more.
        #expect(h.call("PUT", "inApps/v1/subscriptions/extend/1", body: Self.body("other")).status == 200)
        #expect(h.call("PUT", "inApps/v1/subscriptions/extend/1", body: Self.body("third")).errorCode == 4_030_005)
    }

    @Test func noExtensionInAFreeTrial() throws {
        let h = try ServerAPIHarness()
        let trial = try h.buy("fx.plus.monthly")
        #expect(trial.offerPaymentMode == .freeTrial)
        let answer = h.call("PUT", "inApps/v1/subscriptions/extend/\(trial.originalID)", body: Self.body("t"))
        #expect(answer.status == 403 && answer.errorCode == 4_030_004)
    }

    @Test func noExtensionForAFamilySharedSubscription() throws {
        let h = try ServerAPIHarness()
        let shared = try h.share("fx.plus.yearly")
        let answer = h.call("PUT", "inApps/v1/subscriptions/extend/\(shared.originalID)", body: Self.body("f"))
        #expect(answer.status == 403 && answer.errorCode == 4_030_007)
    }

    @Test func theMassExtensionHonoursStorefrontCountryCodes() throws {
        let h = try ServerAPIHarness()
        let bought = try h.buy("fx.plus.yearly")
        #expect(bought.storefrontCountryCode == "USA")
        func mass(_ identifier: String, _ codes: [String]?) -> ServerAPIHarness.Answer {
            var members: [(String, JSONValue)] = [
                ("extendByDays", .int(3)), ("extendReasonCode", .int(0)), ("requestIdentifier", .string(identifier)),
                ("productId", .string("fx.plus.yearly")),
            ]
            if let codes { members.append(("storefrontCountryCodes", .array(codes.map(JSONValue.string)))) }
            return h.call("POST", "inApps/v1/subscriptions/extend/mass", body: .object(members))
        }
        func status(_ identifier: String) -> JSONValue? {
            h.call("GET", "inApps/v1/subscriptions/extend/mass/fx.plus.yearly/\(identifier)").body
        }
        #expect(mass("canada", ["CAN"]).status == 200)
        #expect(status("canada")?["succeededCount"] == .int(0) && status("canada")?["failedCount"] == .int(0))
        #expect(mass("usa", ["CAN", "usa"]).status == 200)
        #expect(status("usa")?["succeededCount"] == .int(1))
        #expect(mass("usa", ["CAN", "usa"]).status == 200)  // again: extended once
        let latest = try #require(try h.session.store.transaction(bought.id))
        #expect(latest.expirationDate == bought.expirationDate?.addingTimeInterval(3 * 86_400))
        #expect(mass("bad", ["XXX"]).errorCode == 4_000_028)
        #expect(mass("empty", []).errorCode == 4_000_027)
    }
}

/// Send Consumption Information checked as Apple checks it (Apple, "Send Consumption
/// Information", "ConsumptionRequest", "consumptionPercentage", "refundPreference").
@Suite struct ConsumptionInformationAPITests {
    let h: ServerAPIHarness

    init() throws {
        h = try ServerAPIHarness()
        try h.buy("fx.coins")  // 1
        try h.buy("fx.plus.yearly")  // 2
        try h.share("fx.levels")  // 3
    }

    func send(_ id: Int, _ members: [(String, JSONValue)]) -> ServerAPIHarness.Answer {
        let base: [(String, JSONValue)] = [
            ("customerConsented", .bool(true)), ("sampleContentProvided", .bool(false)),
            ("deliveryStatus", .string("DELIVERED")),
        ]
        var merged = base.filter { key, _ in !members.contains { $0.0 == key } }
        merged += members.filter { $0.1 != .null }
        return h.call("PUT", "inApps/v2/transactions/consumption/\(id)", body: .object(merged))
    }

    @Test func aValidRequestIsAccepted() {
        #expect(
            send(1, [("consumptionPercentage", .int(25_000)), ("refundPreference", .string("GRANT_PRORATED"))])
                .status == 202)
        #expect(send(2, [("refundPreference", .string("DECLINE"))]).status == 202)
    }

    @Test func customerConsentedMustBeTrue() {
        #expect(send(1, [("customerConsented", .bool(false))]).errorCode == 4_000_035)
        #expect(send(1, [("customerConsented", .null)]).errorCode == 4_000_035)
        #expect(send(1, [("customerConsented", .string("true"))]).errorCode == 4_000_035)
    }

    @Test func enumsAndRangesAreApples() {
        #expect(send(1, [("deliveryStatus", .string("DELIVERED_AND_WORKING"))]).errorCode == 4_000_036)
        #expect(send(1, [("deliveryStatus", .null)]).errorCode == 4_000_036)
        #expect(send(1, [("sampleContentProvided", .null)]).errorCode == 4_000_041)
        #expect(send(1, [("refundPreference", .string("GRANT_SOME"))]).errorCode == 4_000_044)
        let tooMuch = send(1, [("consumptionPercentage", .int(100_001))])
        #expect(tooMuch.status == 400 && tooMuch.errorCode == 4_000_000)
        #expect(tooMuch.body?["errorMessage"]?.stringValue?.hasPrefix("ConsumptionPercentageOutOfRangeError") == true)
        let undelivered = send(
            1, [("deliveryStatus", .string("UNDELIVERED_OTHER")), ("consumptionPercentage", .int(10_000))])
        #expect(undelivered.body?["errorMessage"]?.stringValue?.hasPrefix("UndeliveredConsumptionPercentage") == true)
        #expect(
            send(1, [("deliveryStatus", .string("UNDELIVERED_OTHER")), ("consumptionPercentage", .int(0))])
                .status == 202)
        let prorated = send(1, [("refundPreference", .string("GRANT_PRORATED")), ("consumptionPercentage", .int(0))])
        #expect(prorated.body?["errorMessage"]?.stringValue?.hasPrefix("ConsumptionPercentageOutOfRange") == true)
        #expect(send(2, [("consumptionPercentage", .int(50_000))]).errorCode == 4_000_209)
    }

    @Test func aFamilySharedTransactionIsRefused() {
        #expect(send(3, []).errorCode == 4_000_185)
    }
}

/// Get Notification History (Apple, "Get Notification History", "NotificationHistoryRequest").
@Suite struct NotificationHistoryAPITests {
    static func request(start: Date, end: Date, _ more: [(String, JSONValue)] = []) -> JSONValue {
        .object(
            [("startDate", SignedPayloads.milliseconds(start)), ("endDate", SignedPayloads.milliseconds(end))] + more)
    }

    static func kinds(_ answer: ServerAPIHarness.Answer) throws -> [String] {
        try (answer.body?["notificationHistory"]?.arrayValue ?? []).map {
            let payload = try ServerAPIHarness.payload($0["signedPayload"]?.stringValue)
            return try #require(payload["notificationType"]?.stringValue)
        }
    }

    /// "To get the notification history for a single user, provide a transactionId": any of
    /// the customer's identifiers selects all their notifications, not only that transaction's.
    @Test func aTransactionIdSelectsTheWholeCustomersNotifications() throws {
        let h = try ServerAPIHarness()
        let start = h.clock.now
        let coins = try h.buy("fx.coins")
        try h.buy("fx.plus.yearly")
        _ = try h.session.sendTestNotification()
        let end = h.clock.now.addingTimeInterval(60)
        let all = h.call("POST", "inApps/v1/notifications/history", body: Self.request(start: start, end: end))
        #expect(try Self.kinds(all).sorted() == ["ONE_TIME_CHARGE", "SUBSCRIBED", "TEST"])
        let customer = h.call(
            "POST", "inApps/v1/notifications/history",
            body: Self.request(start: start, end: end, [("transactionId", .string(String(coins.id)))]))
        #expect(try Self.kinds(customer).sorted() == ["ONE_TIME_CHARGE", "SUBSCRIBED"])
        let stranger = h.call(
            "POST", "inApps/v1/notifications/history",
            body: Self.request(start: start, end: end, [("transactionId", .string("999"))]))
        #expect(stranger.status == 200)
        #expect(try Self.kinds(stranger).isEmpty)
        let both = h.call(
            "POST", "inApps/v1/notifications/history",
            body: Self.request(
                start: start, end: end, [("transactionId", .string("1")), ("notificationType", .string("TEST"))]))
        #expect(both.errorCode == 4_000_019)
    }

    /// A page reads the notifications journal once, and only the lines added since the last
    /// request: it used to be read again for every item signed, so a page at 10,000
    /// notifications took seconds, and a page now costs the same however long the journal is.
    @Test func aPageReadsOnlyWhatTheJournalGainedSinceTheLastRequest() throws {
        let h = try ServerAPIHarness()
        let start = h.clock.now
        for _ in 0..<45 { _ = try h.session.sendTestNotification() }
        let end = h.clock.now.addingTimeInterval(3600)
        let cache = h.session.store.cache
        func page(_ token: String?) throws -> (count: Int, token: String?, reads: Int, lines: Int) {
            let (reads, lines) = (cache.notificationJournalReads, cache.notificationLinesRead)
            let answer = h.call(
                "POST", "inApps/v1/notifications/history", query: token.map { [("paginationToken", $0)] } ?? [],
                body: Self.request(start: start, end: end))
            return (
                try Self.kinds(answer).count, answer.body?["paginationToken"]?.stringValue,
                cache.notificationJournalReads - reads, cache.notificationLinesRead - lines
            )
        }
        let first = try page(nil)
        #expect(first.count == 20 && first.reads == 1 && first.lines == 45)
        let second = try page(first.token)
        #expect(second.count == 20 && second.reads == 1 && second.lines == 0)
        for _ in 0..<5 { _ = try h.session.sendTestNotification() }
        let third = try page(second.token)
        #expect(third.count == 10 && third.reads == 1 && third.lines == 5)
    }

    /// "Notification history is available for the past 180 days."
    @Test func aStartDateOlderThan180DaysIsRefused() throws {
        let h = try ServerAPIHarness()
        try h.buy("fx.coins")
        let now = h.clock.now
        let old = h.call(
            "POST", "inApps/v1/notifications/history",
            body: Self.request(start: now.addingTimeInterval(-181 * 86_400), end: now))
        #expect(old.status == 400 && old.errorCode == 4_000_012)
        let recent = h.call(
            "POST", "inApps/v1/notifications/history",
            body: Self.request(start: now.addingTimeInterval(-179 * 86_400), end: now.addingTimeInterval(1)))
        #expect(recent.status == 200)
        #expect(try Self.kinds(recent) == ["ONE_TIME_CHARGE"])
    }
}

/// Set App Account Token (Apple, "Set App Account Token", "Error codes").
@Suite struct AppAccountTokenAPITests {
    static let body = JSONValue.object([("appAccountToken", .string("7e3fb20b-4cdb-47cc-936d-99d65f608138"))])

    @Test func onlyAnOriginalTransactionOfTheCustomersOwnTakesAToken() throws {
        let h = try ServerAPIHarness()
        let yearly = try h.buy("fx.plus.yearly")
        h.clock.advance(days: 400)
        _ = try h.session.status()  // renewed: transaction 2
        let renewal = try #require(try h.session.store.chain(yearly.originalID).last)
        #expect(renewal.id != yearly.id)
        let notOriginal = h.call("PUT", "inApps/v1/transactions/\(renewal.id)/appAccountToken", body: Self.body)
        #expect(notOriginal.status == 400 && notOriginal.errorCode == 4_000_187)
        let shared = try h.share("fx.levels")
        let family = h.call("PUT", "inApps/v1/transactions/\(shared.id)/appAccountToken", body: Self.body)
        #expect(family.status == 400 && family.errorCode == 4_000_185)
        #expect(h.call("PUT", "inApps/v1/transactions/999/appAccountToken", body: Self.body).errorCode == 4_040_005)
        let done = h.call("PUT", "inApps/v1/transactions/\(yearly.id)/appAccountToken", body: Self.body)
        #expect(done.status == 200)
        #expect(try h.signedTransaction(renewal.id)["appAccountToken"] == Self.body["appAccountToken"])
    }
}

/// Finish Transaction (Apple, "Finish Transaction"; App Store Server API 1.20).
@Suite struct FinishTransactionAPITests {
    @Test func finishTransactionFinishesAsTheAppDoes() throws {
        let h = try ServerAPIHarness()
        _ = try h.session.setSetting(.finishTransactions, to: "manual")
        let coins = try h.buy("fx.coins")
        #expect(try h.session.status().unfinishedTransactionIDs == [coins.id])
        let answer = h.call("POST", "inApps/v1/transactions/\(coins.id)/finish")
        #expect(answer.status == 200 && answer.body == nil)
        #expect(try h.session.status().unfinishedTransactionIDs.isEmpty)
        // Again: already finished, still 200. Unknown, malformed, or the wrong method: Apple's errors.
        #expect(h.call("POST", "inApps/v1/transactions/\(coins.id)/finish").status == 200)
        #expect(h.call("POST", "inApps/v1/transactions/999/finish").errorCode == 4_040_010)
        #expect(h.call("POST", "inApps/v1/transactions/abc/finish").errorCode == 4_000_006)
        #expect(h.call("GET", "inApps/v1/transactions/\(coins.id)/finish").status == 405)
    }
}
