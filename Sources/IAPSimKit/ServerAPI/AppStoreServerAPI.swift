import Foundation

/// One App Store Server API request, as the HTTP front end hands it over.
public struct APIRequest: Sendable {
    public var method: String
    /// The decoded path, e.g. `/inApps/v1/transactions/1`.
    public var path: String
    /// Query parameters in order; a name may repeat (`productId=a&productId=b`).
    public var query: [(name: String, value: String)]
    public var authorization: String?
    public var body: [UInt8]

    public init(
        method: String, path: String, query: [(name: String, value: String)], authorization: String?, body: [UInt8]
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body
    }

    func values(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }
    func value(_ name: String) -> String? { query.last { $0.name == name }?.value }
}

/// What to answer: a status and a JSON body (or none). `Content-Type: application/json`
/// exactly, without a charset: Apple's Python client reads the error code only then.
public struct APIResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]

    public static func json(_ value: JSONValue, status: Int = 200) -> APIResponse {
        APIResponse(status: status, body: value.bytes(compact: true))
    }

    public static func error(_ error: APIError) -> APIResponse {
        APIResponse(status: error.status, body: error.json.bytes(compact: true))
    }
}

/// The App Store Server API, served from the simulator's own state: every answer follows the
/// purchases, renewals and refunds made through the CLI (or this API) so far. Endpoints,
/// bodies and error codes are Apple's ("App Store Server API"); every signed item is signed
/// as `iapsim jws` signs it. Reads and writes go through the same `StoreSession` operations
/// as the command line, under the same lock.
public struct AppStoreServerAPI: Sendable {
    public var session: StoreSession
    public var signer: StoreSession.Signer
    public var verifier: BearerTokenVerifier
    /// The real clock, for token expiry.
    public var realNow: @Sendable () -> Date

    /// Mass extensions requested, by request identifier (kept while the server runs).
    private let massExtensions = MassExtensions()

    public init(
        session: StoreSession, signer: StoreSession.Signer, verifier: BearerTokenVerifier,
        realNow: @escaping @Sendable () -> Date
    ) {
        self.session = session
        self.signer = signer
        self.verifier = verifier
        self.realNow = realNow
    }

    /// Answers `request`; never throws: every failure is an Apple error response.
    public func respond(_ request: APIRequest) -> APIResponse {
        do {
            let settings = try session.settings()
            do {
                try verifier.verify(authorization: request.authorization, bundleID: settings.bundleID, now: realNow())
            } catch {
                return APIResponse(status: 401, body: [])
            }
            return try route(request, settings: settings)
        } catch let error as APIError {
            return .error(error)
        } catch {
            return .error(APIError(5_000_000, "An unknown error occurred: \(error)"))
        }
    }

    private func route(_ request: APIRequest, settings: SessionSettings) throws -> APIResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 3, parts[0] == "inApps" else { throw APIError.notFound }
        let method = request.method
        func expect(_ allowed: String) throws {
            if method != allowed { throw APIError.methodNotAllowed }
        }
        /// The `*` segments of `pattern` in the path, or nil when it does not match.
        func match(_ pattern: String) -> [String]? {
            let expected = pattern.split(separator: "/").map(String.init)
            let actual = Array(parts.dropFirst())
            guard expected.count == actual.count else { return nil }
            var captured: [String] = []
            for (want, have) in zip(expected, actual) {
                if want == "*" { captured.append(have) } else if want != have { return nil }
            }
            return captured
        }
        if let captured = match("v1/transactions/appTransactions/*") {
            let id = captured[0]
            try expect("GET")
            _ = try transaction(id)
            let signed = try session.signedAppTransaction(signer: signer)
            return .json(.object([("signedAppTransactionInfo", .string(signed.jws))]))
        }
        if let captured = match("v1/transactions/*/appAccountToken") {
            let id = captured[0]
            try expect("PUT")
            let body = try jsonBody(request)
            guard let token = body["appAccountToken"]?.stringValue, UUID(uuidString: token) != nil else {
                throw APIError.invalidAppAccountToken
            }
            guard let original = UInt64(id), original > 0 else { throw APIError.invalidOriginalTransactionId }
            guard try session.setAppAccountToken(token.lowercased(), originalID: original) else {
                throw APIError.originalTransactionIdNotFound
            }
            return APIResponse(status: 200, body: [])
        }
        if let captured = match("v1/transactions/*") {
            let id = captured[0]
            try expect("GET")
            let signed = try session.signedTransaction(try transaction(id).id, signer: signer)
            return .json(.object([("signedTransactionInfo", .string(signed.jws))]))
        }
        if let captured = match("v1/history/*") ?? match("v2/history/*") {
            let id = captured[0]
            try expect("GET")
            _ = try transaction(id)
            return try history(request, settings: settings)
        }
        if let captured = match("v1/subscriptions/extend/mass") {
            try expect("POST")
            return try massExtend(request)
        }
        if let captured = match("v1/subscriptions/extend/mass/*/*") {
            let productID = captured[0]
            let requestID = captured[1]
            try expect("GET")
            guard let record = massExtensions.get(requestID), record.productID == productID else {
                throw APIError.statusRequestNotFound
            }
            return .json(
                .object([
                    ("requestIdentifier", .string(requestID)), ("complete", .bool(true)),
                    ("completeDate", SignedPayloads.milliseconds(record.date)),
                    ("succeededCount", .int(record.succeeded)), ("failedCount", .int(record.failed)),
                ]))
        }
        if let captured = match("v1/subscriptions/extend/*") {
            let id = captured[0]
            try expect("PUT")
            return try extend(id, request)
        }
        if let captured = match("v1/subscriptions/*") {
            let id = captured[0]
            try expect("GET")
            _ = try transaction(id)
            return try statuses(request, settings: settings)
        }
        if let captured = match("v1/refund/lookup/*") ?? match("v2/refund/lookup/*") {
            let id = captured[0]
            try expect("GET")
            _ = try transaction(id)
            return try refunds(request)
        }
        if let captured = match("v1/lookup/*") {
            let orderID = captured[0]
            try expect("GET")
            let matches = try session.history().entries.map(\.transaction).filter { $0.orderID == orderID }
            let signed = try matches.map { try session.signedTransaction($0.id, signer: signer).jws }
            return .json(.object([("status", .int(matches.isEmpty ? 1 : 0)), ("signedTransactions", .array(signed.map(JSONValue.string)))]))
        }
        if let captured = match("v1/transactions/consumption/*") ?? match("v2/transactions/consumption/*") {
            let id = captured[0]
            try expect("PUT")
            _ = try transaction(id)
            let body = try jsonBody(request)
            guard body["customerConsented"]?.boolValue != nil else {
                throw APIError(4_000_103, "Invalid customer consented.")
            }
            return APIResponse(status: 202, body: [])
        }
        if let captured = match("v1/notifications/test") {
            try expect("POST")
            let test = try session.sendTestNotification()
            return .json(.object([("testNotificationToken", .string(test.uuid))]))
        }
        if let captured = match("v1/notifications/test/*") {
            let token = captured[0]
            try expect("GET")
            guard UUID(uuidString: token) != nil else { throw APIError.invalidTestNotificationToken }
            guard let entry = try session.notifications(NotificationFilter(kind: .test)).first(where: { $0.notification.uuid == token.lowercased() })
            else { throw APIError.testNotificationNotFound }
            let signed = try session.notification(entry.notification.uuid, signer: signer).signed
            return .json(.object([("signedPayload", .string(signed.jws)), ("sendAttempts", .array(entry.attempts.map(Self.attempt)))]))
        }
        if let captured = match("v1/notifications/history") {
            try expect("POST")
            return try notificationHistory(request)
        }
        throw APIError.notFound
    }

    // MARK: Endpoints

    /// The account's transaction named by a path segment, or Apple's error.
    private func transaction(_ segment: String) throws -> Transaction {
        guard let id = UInt64(segment), id > 0, segment.allSatisfy(\.isASCII) else { throw APIError.invalidTransactionId }
        guard let found = try session.history().entries.first(where: { $0.transaction.id == id })?.transaction else {
            throw APIError.transactionIdNotFound
        }
        return found
    }

    private func jsonBody(_ request: APIRequest) throws -> JSONValue {
        guard let value = try? JSONValue.parse(request.body), value.objectValue != nil else {
            throw APIError.generalBadRequest
        }
        return value
    }

    private func millisecondsDate(_ text: String?, _ error: APIError) throws -> Date? {
        guard let text else { return nil }
        guard let value = Int64(text), value >= 0 else { throw error }
        return Date(timeIntervalSince1970: Double(value) / 1000)
    }

    /// Get Transaction History: filtered, sorted, 20 a page; `revision` is how many of the
    /// sorted list were already returned.
    private func history(_ request: APIRequest, settings: SessionSettings) throws -> APIResponse {
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
    private static func page<Item>(_ items: [Item], revision: String?) throws -> ([Item], String, Bool) {
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

    private func appAppleID(_ settings: SessionSettings) -> [(String, JSONValue)] {
        settings.appAppleID.map { [("appAppleId", .number(String($0)))] } ?? []
    }

    /// Get All Subscription Statuses, by group.
    private func statuses(_ request: APIRequest, settings: SessionSettings) throws -> APIResponse {
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
    private func refunds(_ request: APIRequest) throws -> APIResponse {
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

    private func extend(_ segment: String, _ request: APIRequest) throws -> APIResponse {
        guard let original = UInt64(segment), original > 0 else { throw APIError.invalidOriginalTransactionId }
        let body = try jsonBody(request)
        guard let days = body["extendByDays"]?.intValue, (1...90).contains(days) else { throw APIError.invalidExtendByDays }
        guard let reason = body["extendReasonCode"]?.intValue, (0...3).contains(reason) else {
            throw APIError.invalidExtendReasonCode
        }
        guard let identifier = body["requestIdentifier"]?.stringValue, !identifier.isEmpty, identifier.count <= 128 else {
            throw APIError.invalidRequestIdentifier
        }
        do {
            let result = try session.extendRenewalDate(originalID: original, days: days)
            return .json(
                .object([
                    ("originalTransactionId", .string(String(result.originalID))),
                    ("webOrderLineItemId", .string(result.webOrderLineItemID)), ("success", .bool(true)),
                    ("effectiveDate", SignedPayloads.milliseconds(result.effectiveDate)),
                ]))
        } catch StoreSession.ExtensionRefusal.notFound {
            throw APIError.originalTransactionIdNotFound
        } catch StoreSession.ExtensionRefusal.ineligible {
            throw APIError.subscriptionExtensionIneligible
        }
    }

    private func massExtend(_ request: APIRequest) throws -> APIResponse {
        let body = try jsonBody(request)
        guard let days = body["extendByDays"]?.intValue, (1...90).contains(days) else { throw APIError.invalidExtendByDays }
        guard let reason = body["extendReasonCode"]?.intValue, (0...3).contains(reason) else {
            throw APIError.invalidExtendReasonCode
        }
        guard let identifier = body["requestIdentifier"]?.stringValue, !identifier.isEmpty, identifier.count <= 128 else {
            throw APIError.invalidRequestIdentifier
        }
        guard let productID = body["productId"]?.stringValue, !productID.isEmpty else { throw APIError.invalidProductId }
        if let codes = body["storefrontCountryCodes"], codes.arrayValue?.isEmpty == true {
            throw APIError.invalidEmptyStorefrontCountryCodeList
        }
        let (succeeded, failed) = try session.extendAllRenewalDates(productID: productID, days: days)
        massExtensions.set(
            identifier,
            MassExtensions.Record(productID: productID, date: try session.clockReading().now, succeeded: succeeded, failed: failed))
        return .json(.object([("requestIdentifier", .string(identifier))]))
    }

    /// Get Notification History: filtered by the body, 20 a page.
    private func notificationHistory(_ request: APIRequest) throws -> APIResponse {
        let body = try jsonBody(request)
        guard let startText = body["startDate"], case .number(let startNumber) = startText, let startMS = Int64(startNumber)
        else { throw APIError.invalidStartDate }
        guard let endText = body["endDate"], case .number(let endNumber) = endText, let endMS = Int64(endNumber) else {
            throw APIError.invalidEndDate
        }
        let start = Date(timeIntervalSince1970: Double(startMS) / 1000)
        let end = Date(timeIntervalSince1970: Double(endMS) / 1000)
        if start > end { throw APIError.startDateAfterEndDate }
        var filter = NotificationFilter(start: start, end: end)
        if let type = body["notificationType"]?.stringValue {
            guard let kind = ServerNotification.Kind(rawValue: type) else { throw APIError.invalidNotificationType }
            filter.kind = kind
        }
        if let subtype = body["notificationSubtype"]?.stringValue {
            guard let value = ServerNotification.Subtype(rawValue: subtype) else { throw APIError.invalidNotificationType }
            filter.subtype = value
        }
        if let id = body["transactionId"]?.stringValue {
            guard let value = UInt64(id), value > 0 else { throw APIError.invalidTransactionId }
            if filter.kind != nil { throw APIError.multipleFiltersSupplied }
            filter.transactionID = value
        }
        filter.onlyFailures = body["onlyFailures"]?.boolValue ?? false
        let entries = try session.notifications(filter)
        let (page, token, hasMore) = try Self.page(entries, revision: request.value("paginationToken"))
        let items = try page.map { entry -> JSONValue in
            let signed = try session.notification(entry.notification.uuid, signer: signer).signed
            return .object([("signedPayload", .string(signed.jws)), ("sendAttempts", .array(entry.attempts.map(Self.attempt)))])
        }
        return .json(
            .object([
                ("paginationToken", .string(token)), ("hasMore", .bool(hasMore)), ("notificationHistory", .array(items)),
            ]))
    }

    static func attempt(_ attempt: DeliveryAttempt) -> JSONValue {
        .object([
            ("attemptDate", SignedPayloads.milliseconds(attempt.date)),
            ("sendAttemptResult", .string(attempt.result.rawValue)),
        ])
    }
}

/// The mass extension requests a server has answered, for their status endpoint.
private final class MassExtensions: @unchecked Sendable {
    struct Record {
        var productID: String
        var date: Date
        var succeeded: Int
        var failed: Int
    }

    private let lock = NSLock()
    private var records: [String: Record] = [:]

    func get(_ identifier: String) -> Record? { lock.withLock { records[identifier] } }
    func set(_ identifier: String, _ record: Record) { lock.withLock { records[identifier] = record } }
}
