import Foundation
import IAPSimJSON

/// The endpoints that look things up: transactions, history, statuses, refunds.
extension AppStoreServerAPI {
    /// The account's transaction named by a path segment, or Apple's error: an endpoint that
    /// takes a transaction identifier refuses the customer's `appTransactionId` with
    /// AppTransactionIdNotSupportedError (Apple, "Error codes").
    func transaction(_ segment: String) throws -> Transaction {
        try refuseAppTransactionID(segment)
        guard let id = Self.transactionNumber(segment) else {
            throw APIError.invalidTransactionId
        }
        // The journal's index finds it without reading the history.
        guard let found = try session.store.transaction(id) else { throw APIError.transactionIdNotFound }
        return found
    }

    /// What a path segment an endpoint reads as "any transaction id" names: a transaction of
    /// the account, or the customer's `appTransactionId` (Apple, "anyTransactionId"), or
    /// Apple's error.
    func anyTransaction(_ segment: String) throws -> AnyTransactionID {
        if try session.isAppTransactionID(segment) { return .appTransaction(segment) }
        return .transaction(try transaction(segment).id)
    }

    /// AppTransactionIdNotSupportedError for the customer's `appTransactionId`.
    func refuseAppTransactionID(_ segment: String) throws {
        if try session.isAppTransactionID(segment) { throw APIError.appTransactionIdNotSupported }
    }

    func jsonBody(_ request: APIRequest) throws -> JSONValue {
        guard let value = try? JSONValue.parse(request.body), value.objectValue != nil else {
            throw APIError.generalBadRequest
        }
        return value
    }

    func millisecondsDate(_ text: String?, _ error: APIError) throws -> Date? {
        guard let text else { return nil }
        guard let value = Int64(text), value >= 0 else { throw error }
        return Date(timeIntervalSince1970: Double(value) / 1000)
    }

    /// Get Transaction History: filtered and sorted through the journal's index, 20 a page;
    /// `version1`, Get Transaction History V1, leaves out finished consumables.
    func history(_ request: APIRequest, settings: SessionSettings, customer: AnyTransactionID, version1: Bool) throws
        -> APIResponse
    {
        var query = HistoryQuery(revision: request.value("revision"))
        query.excludesFinishedConsumables = version1
        query.startDate = try millisecondsDate(request.value("startDate"), .invalidStartDate)
        query.endDate = try millisecondsDate(request.value("endDate"), .invalidEndDate)
        if let start = query.startDate, let end = query.endDate, start > end { throw APIError.startDateAfterEndDate }
        query.productTypes = try request.values("productType").map { text -> ProductType in
            switch text {
            case "AUTO_RENEWABLE": return .autoRenewable
            case "NON_RENEWABLE": return .nonRenewable
            case "CONSUMABLE": return .consumable
            case "NON_CONSUMABLE": return .nonConsumable
            default: throw APIError.invalidProductType
            }
        }
        guard let sort = HistoryQuery.Sort(rawValue: request.value("sort") ?? "ASCENDING") else {
            throw APIError.invalidSort
        }
        query.sort = sort
        query.revoked = try request.value("revoked").map { text -> Bool in
            switch text.lowercased() {
            case "true": return true
            case "false": return false
            default: throw APIError.invalidRevoked
            }
        }
        if let text = request.value("inAppOwnershipType") {
            guard let ownership = Transaction.OwnershipType(appleName: text) else {
                throw APIError.invalidInAppOwnershipType
            }
            query.ownership = ownership
        }
        query.productIDs = request.values("productId")
        query.subscriptionGroupIDs = request.values("subscriptionGroupIdentifier")
        let page: HistoryPage
        do {
            page = try session.historyPage(customer, query: query)
        } catch is HistoryQueryError {
            throw APIError.invalidRequestRevision
        }
        let signed = try session.signedTransactions(page.transactions, signer: signer)
        return .json(
            .object(
                [
                    ("revision", .string(page.revision)), ("hasMore", .bool(page.hasMore)),
                    ("bundleId", .string(settings.bundleID)),
                ] + appAppleID(settings) + [
                    ("environment", .string((signer.environment ?? settings.environment).rawValue)),
                    (
                        "signedTransactions",
                        .array(page.transactions.compactMap { signed[$0.id] }.map(JSONValue.string))
                    ),
                ]))
    }

    func appAppleID(_ settings: SessionSettings) -> [(String, JSONValue)] {
        settings.appAppleID.map { [("appAppleId", .number(String($0)))] } ?? []
    }

    /// Get All Subscription Statuses, by group.
    func statuses(_ request: APIRequest, settings: SessionSettings) throws -> APIResponse {
        let wanted = try Set(
            request.values("status").map { text -> Int in
                guard let value = Int(text), (1...5).contains(value) else { throw APIError.invalidStatus }
                return value
            })
        let subscriptions = try session.status().subscriptions
        var groups: [(String, [JSONValue])] = []
        for subscription in subscriptions {
            let status = ServerNotification.Status(subscription.state).rawValue
            guard wanted.isEmpty || wanted.contains(status) else { continue }
            let latest = try session.store.chain(subscription.originalID).max { $0.id < $1.id }
            guard let latest else { continue }
            let item = JSONValue.object([
                ("status", .int(status)), ("originalTransactionId", .string(String(subscription.originalID))),
                ("signedTransactionInfo", .string(try session.signedTransaction(latest.id, signer: signer).jws)),
                (
                    "signedRenewalInfo",
                    .string(try session.signedRenewalInfo(String(subscription.originalID), signer: signer).jws)
                ),
            ])
            if let index = groups.firstIndex(where: { $0.0 == subscription.subscriptionGroupID }) {
                groups[index].1.append(item)
            } else {
                groups.append((subscription.subscriptionGroupID, [item]))
            }
        }
        return .json(
            .object(
                [
                    ("environment", .string((signer.environment ?? settings.environment).rawValue)),
                    ("bundleId", .string(settings.bundleID)),
                ]
                    + appAppleID(settings) + [
                        (
                            "data",
                            .array(
                                groups.map {
                                    .object([
                                        ("subscriptionGroupIdentifier", .string($0.0)),
                                        ("lastTransactions", .array($0.1)),
                                    ])
                                })
                        )
                    ]))
    }

    /// Get Refund History: refunded transactions, the latest revocation first, 20 a page.
    func refunds(_ request: APIRequest, customer: AnyTransactionID) throws -> APIResponse {
        let page: HistoryPage
        do {
            page = try session.refundHistoryPage(customer, revision: request.value("revision"))
        } catch is HistoryQueryError {
            throw APIError.invalidRequestRevision
        }
        let signed = try session.signedTransactions(page.transactions, signer: signer)
        return .json(
            .object([
                ("signedTransactions", .array(page.transactions.compactMap { signed[$0.id] }.map(JSONValue.string))),
                ("revision", .string(page.revision)), ("hasMore", .bool(page.hasMore)),
            ]))
    }

    /// Look Up Order ID. Apple, "OrderLookupResponse": an invalid order ID answers `status` 1
    /// without a `signedTransactions` array; a valid one `status` 0 with at least one
    /// transaction. Apple, "Look Up Order ID": "This endpoint isn't available in the sandbox
    /// environment" — the sandbox emails no receipts, so no order ID is valid there, and in
    /// Sandbox every order answers `status` 1 (the response codes Apple lists have no error
    /// for it). Serve `--environment Production` (or `settings set environment Production`)
    /// to look orders up.
    func lookUpOrder(_ orderID: String, settings: SessionSettings) throws -> APIResponse {
        let invalid = APIResponse.json(.object([("status", .int(1))]))
        guard (signer.environment ?? settings.environment) != .sandbox else { return invalid }
        let matches = try session.transactions(orderID: orderID)
        guard !matches.isEmpty else { return invalid }
        let signed = try matches.map { try session.signedTransaction($0.id, signer: signer).jws }
        return .json(.object([("status", .int(0)), ("signedTransactions", .array(signed.map(JSONValue.string)))]))
    }
}
