import Foundation

/// The endpoints that look things up: transactions, history, statuses, refunds.
extension AppStoreServerAPI {
    /// The account's transaction named by a path segment, or Apple's error.
    func transaction(_ segment: String) throws -> Transaction {
        guard let id = UInt64(segment), id > 0, segment.allSatisfy(\.isASCII) else { throw APIError.invalidTransactionId }
        // The journal's index finds it without reading the history.
        guard let found = try session.store.transaction(id) else { throw APIError.transactionIdNotFound }
        return found
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

    /// Get Transaction History: filtered, sorted, 20 a page; `revision` is how many of the
    /// sorted list were already returned.
    func history(_ request: APIRequest, settings: SessionSettings) throws -> APIResponse {
        let start = try millisecondsDate(request.value("startDate"), .invalidStartDate)
        let end = try millisecondsDate(request.value("endDate"), .invalidEndDate)
        if let start, let end, start > end { throw APIError.startDateAfterEndDate }
        let types = try request.values("productType").map { text -> ProductType in
            switch text {
            case "AUTO_RENEWABLE": return .autoRenewable
            case "NON_RENEWABLE": return .nonRenewable
            case "CONSUMABLE": return .consumable
            case "NON_CONSUMABLE": return .nonConsumable
            default: throw APIError.invalidProductType
            }
        }
        let sort = request.value("sort") ?? "ASCENDING"
        guard sort == "ASCENDING" || sort == "DESCENDING" else { throw APIError.invalidSort }
        let revoked = try request.value("revoked").map { text -> Bool in
            switch text.lowercased() {
            case "true": return true
            case "false": return false
            default: throw APIError.invalidRevoked
            }
        }
        if let ownership = request.value("inAppOwnershipType"), ownership != "PURCHASED", ownership != "FAMILY_SHARED" {
            throw APIError.invalidInAppOwnershipType
        }
        let products = Set(request.values("productId"))
        let groups = Set(request.values("subscriptionGroupIdentifier"))
        var transactions = try session.history().entries.map(\.transaction).filter { t in
            (start.map { t.purchaseDate >= $0 } ?? true) && (end.map { t.purchaseDate < $0 } ?? true)
                && (types.isEmpty || types.contains(t.productType)) && (products.isEmpty || products.contains(t.productID))
                && (groups.isEmpty || t.subscriptionGroupID.map(groups.contains) == true)
                && (revoked.map { $0 == (t.revocationDate != nil) } ?? true)
                && request.value("inAppOwnershipType") != "FAMILY_SHARED"
        }
        transactions.sort { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
        if sort == "DESCENDING" { transactions.reverse() }
        let (page, revision, hasMore) = try Self.page(transactions, revision: request.value("revision"))
        let signed = try session.signedTransactions(page, signer: signer)
        return .json(
            .object(
                [
                    ("revision", .string(revision)), ("hasMore", .bool(hasMore)), ("bundleId", .string(settings.bundleID)),
                ] + appAppleID(settings) + [
                    ("environment", .string((signer.environment ?? settings.environment).rawValue)),
                    ("signedTransactions", .array(page.compactMap { signed[$0.id] }.map(JSONValue.string))),
                ]))
    }

    /// Twenty items from the position `revision` names; the next revision and whether more follow.
    static func page<Item>(_ items: [Item], revision: String?) throws -> ([Item], String, Bool) {
        var offset = 0
        if let revision {
            guard let bytes = try? Base64URL.decode(revision), let text = String(bytes: bytes, encoding: .utf8),
                text.hasPrefix("iapsim:"), let value = Int(text.dropFirst(7)), value >= 0, value <= items.count
            else { throw APIError.invalidRequestRevision }
            offset = value
        }
        let page = Array(items[offset..<min(items.count, offset + 20)])
        let next = offset + page.count
        return (page, Base64URL.encode(Array("iapsim:\(next)".utf8)), next < items.count)
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
            let latest = try session.history(productID: nil).entries.filter {
                $0.transaction.originalID == subscription.originalID
            }.map(\.transaction).max { $0.id < $1.id }
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
                [("environment", .string((signer.environment ?? settings.environment).rawValue)), ("bundleId", .string(settings.bundleID))]
                    + appAppleID(settings) + [
                        (
                            "data",
                            .array(
                                groups.map {
                                    .object([("subscriptionGroupIdentifier", .string($0.0)), ("lastTransactions", .array($0.1))])
                                })
                        )
                    ]))
    }

    /// Get Refund History: refunded transactions, newest first, 20 a page.
    func refunds(_ request: APIRequest) throws -> APIResponse {
        let revoked = try session.history().entries.map(\.transaction).filter { $0.revocationDate != nil }
            .sorted { ($0.revocationDate ?? .distantPast, $0.id) > ($1.revocationDate ?? .distantPast, $1.id) }
        let (page, revision, hasMore) = try Self.page(revoked, revision: request.value("revision"))
        let signed = try session.signedTransactions(page, signer: signer)
        return .json(
            .object([
                ("signedTransactions", .array(page.compactMap { signed[$0.id] }.map(JSONValue.string))),
                ("revision", .string(revision)), ("hasMore", .bool(hasMore)),
            ]))
    }
}
