import Foundation
import IAPSimCrypto
import IAPSimJSON

/// The endpoints that change the account or page through notifications: extensions and the
/// notification history.
extension AppStoreServerAPI {
    func extend(_ segment: String, _ request: APIRequest) throws -> APIResponse {
        guard let original = Self.transactionNumber(segment) else { throw APIError.invalidOriginalTransactionId }
        let body = try jsonBody(request)
        let (days, identifier) = try Self.extension(body)
        do {
            let result = try session.extendRenewalDate(originalID: original, days: days, requestIdentifier: identifier)
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
        } catch StoreSession.ExtensionRefusal.maximumReached {
            throw APIError.subscriptionMaxExtension
        } catch StoreSession.ExtensionRefusal.familyShared {
            throw APIError.familySharedSubscriptionExtensionIneligible
        }
    }

    /// What both extension requests give, checked as Apple checks them
    /// ("ExtendRenewalDateRequest", "MassExtendRenewalDateRequest"): `extendByDays` 1…90,
    /// `extendReasonCode` 0…3, a `requestIdentifier` of 1 to 128 characters.
    private static func `extension`(_ body: JSONValue) throws -> (days: Int, identifier: String) {
        guard let days = body["extendByDays"]?.intValue, StoreSession.extensionDays.contains(days) else {
            throw APIError.invalidExtendByDays
        }
        guard let reason = body["extendReasonCode"]?.intValue, (0...3).contains(reason) else {
            throw APIError.invalidExtendReasonCode
        }
        guard let identifier = body["requestIdentifier"]?.stringValue, !identifier.isEmpty, identifier.count <= 128
        else {
            throw APIError.invalidRequestIdentifier
        }
        return (days, identifier)
    }

    func massExtend(_ request: APIRequest) throws -> APIResponse {
        let body = try jsonBody(request)
        let (days, identifier) = try Self.extension(body)
        guard let productID = body["productId"]?.stringValue, !productID.isEmpty else {
            throw APIError.invalidProductId
        }
        var storefronts: [String]?
        if let codes = body["storefrontCountryCodes"], codes != .null {
            guard let list = codes.arrayValue else { throw APIError.invalidStorefrontCountryCode }
            if list.isEmpty { throw APIError.invalidEmptyStorefrontCountryCodeList }
            storefronts = try list.map { code in
                guard let storefront = code.stringValue.flatMap(Storefront.named) else {
                    throw APIError.invalidStorefrontCountryCode
                }
                return storefront.countryCode
            }
        }
        // The same request again (a retry) answers as the first did, extending nothing twice.
        if let done = massExtensions.get(identifier), done.productID == productID {
            return .json(.object([("requestIdentifier", .string(identifier))]))
        }
        let (succeeded, failed) = try session.extendAllRenewalDates(
            productID: productID, days: days, requestIdentifier: identifier, storefrontCountryCodes: storefronts)
        massExtensions.set(
            identifier,
            MassExtensions.Record(
                productID: productID, date: try session.clockReading().now, succeeded: succeeded, failed: failed))
        return .json(.object([("requestIdentifier", .string(identifier))]))
    }

    /// Finish Transaction (App Store Server API 1.20): the server tells the App Store it has
    /// delivered the purchase, as the app's `Transaction.finish()` does (`iapsim finish`), so
    /// StoreKit stops re-delivering it. Finishing one already finished changes nothing and
    /// answers 200 too: Apple's page lists no error for it, and a retried call must not fail.
    func finish(_ segment: String) throws -> APIResponse {
        let found = try transaction(segment)
        do {
            try session.finish(found.id)
        } catch SimulationError.notUnfinished {
            // Already finished.
        } catch SimulationError.unknownTransaction {
            throw APIError.transactionIdNotFound
        }
        return APIResponse(status: 200, body: [])
    }

    /// Get Notification History: filtered by the body, 20 a page.
    func notificationHistory(_ request: APIRequest) throws -> APIResponse {
        let body = try jsonBody(request)
        guard let startText = body["startDate"], case .number(let startNumber) = startText,
            let startMS = Int64(startNumber)
        else { throw APIError.invalidStartDate }
        guard let endText = body["endDate"], case .number(let endNumber) = endText, let endMS = Int64(endNumber) else {
            throw APIError.invalidEndDate
        }
        let start = Date(timeIntervalSince1970: Double(startMS) / 1000)
        let end = Date(timeIntervalSince1970: Double(endMS) / 1000)
        if start > end { throw APIError.startDateAfterEndDate }
        // Apple, "NotificationHistoryRequest": "Notification history is available for the past
        // 180 days" (on the simulated clock).
        if start < (try session.clockReading().now).addingTimeInterval(-Self.notificationHistoryDays * 86_400) {
            throw APIError.startDateTooFarInPast
        }
        var filter = NotificationFilter(start: start, end: end)
        if let type = body["notificationType"]?.stringValue {
            guard let kind = ServerNotification.Kind(rawValue: type) else { throw APIError.invalidNotificationType }
            filter.kind = kind
        }
        if let subtype = body["notificationSubtype"]?.stringValue {
            guard let value = ServerNotification.Subtype(rawValue: subtype) else {
                throw APIError.invalidNotificationType
            }
            filter.subtype = value
        }
        // Apple, "Get Notification History": "to get the notification history for a single
        // user, provide a transactionId" — any of the customer's: an identifier of theirs
        // selects every notification about their purchases (not a TEST notification, nor a
        // mass extension's summary); any other, none.
        // The store has many customers: the identifier names one (`acting(for:)`), whose
        // notifications alone are selected.
        var customer: Bool?
        if let id = body["transactionId"]?.stringValue {
            if filter.kind != nil || filter.subtype != nil { throw APIError.multipleFiltersSupplied }
            // One parse, digits only, and the customer filter from it: `+1` is 4000006, never
            // a filter that names no customer and so lets every customer's notifications by.
            guard let value = Self.transactionNumber(id), let number = Self.customerNumber(of: id) else {
                throw APIError.invalidTransactionId
            }
            let owner = try acting(for: id).session
            if try owner.isAppTransactionID(id) {
                customer = true
            } else {
                customer = try owner.store.transaction(value) != nil
            }
            filter.customerNumber = number
        }
        filter.onlyFailures = body["onlyFailures"]?.boolValue ?? false
        // Positions into one read of the journal: only the page's entries are copied.
        let journal = try session.notificationJournalView()
        let (positions, token, hasMore) = try Self.page(
            of: journal.keys.count, revision: request.value("paginationToken")
        ) { position in
            let key = journal.keys[position]
            return filter.matches(key) && customer.map { $0 && key.transactionID != nil } ?? true
        }
        let page = positions.map { journal.entries[$0] }
        // The journal is read once, above; the page is signed from what that read returned.
        let signed = try session.signedNotifications(page, signer: signer)
        let items = zip(page, signed).map { entry, signed -> JSONValue in
            .object([
                ("signedPayload", .string(signed.jws)), ("sendAttempts", .array(entry.attempts.map(Self.attempt))),
            ])
        }
        return .json(
            .object([
                ("paginationToken", .string(token)), ("hasMore", .bool(hasMore)),
                ("notificationHistory", .array(items)),
            ]))
    }

    /// How far back the notification history reaches, in days.
    static let notificationHistoryDays: Double = 180

    /// Twenty positions of `count` that `matches`, from the position `token` names; the next
    /// token and whether more follow. The token is a position in the journal, so a page scans
    /// from there and stops at the twenty-first match: its cost does not grow with the journal.
    static func page(of count: Int, revision token: String?, matches: (Int) -> Bool) throws -> ([Int], String, Bool) {
        var position = 0
        if let token {
            guard let bytes = try? Base64URL.decode(token), let text = String(bytes: bytes, encoding: .utf8),
                text.hasPrefix("iapsim:"), let value = Int(text.dropFirst(7)), value >= 0, value <= count
            else { throw APIError.invalidPaginationToken }
            position = value
        }
        var page: [Int] = []
        var next = count
        while position < count {
            if matches(position) {
                if page.count == 20 {
                    next = position
                    break
                }
                page.append(position)
            }
            position += 1
        }
        let hasMore = next < count
        let resume = hasMore ? next : count
        return (page, Base64URL.encode(Array("iapsim:\(resume)".utf8)), hasMore)
    }

    static func attempt(_ attempt: DeliveryAttempt) -> JSONValue {
        .object([
            ("attemptDate", SignedPayloads.milliseconds(attempt.date)),
            ("sendAttemptResult", .string(attempt.result.rawValue)),
        ])
    }
}
