import Foundation
import IAPSimHTTP
import IAPSimJSON

/// One App Store Server API request, as the HTTP front end hands it over.
public struct APIRequest: Sendable {
    public var method: String
    /// The path's segments, each decoded on its own (`%2F` stays inside its segment), e.g.
    /// `["inApps", "v1", "transactions", "1"]`.
    public var pathComponents: [String]
    /// Query parameters in order; a name may repeat (`productId=a&productId=b`).
    public var query: [(name: String, value: String)]
    public var authorization: String?
    public var body: [UInt8]
    /// The Apple host a tunnel named (`serve` as an HTTPS proxy), whose environment is the
    /// one asked for; nil when the request came to iapsim's own address.
    public var host: AppleHost?

    public init(
        method: String, pathComponents: [String], query: [(name: String, value: String)], authorization: String?,
        body: [UInt8], host: AppleHost? = nil
    ) {
        self.method = method
        self.pathComponents = pathComponents
        self.query = query
        self.authorization = authorization
        self.body = body
        self.host = host
    }

    func values(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }
    func value(_ name: String) -> String? { query.last { $0.name == name }?.value }
}

/// What to answer: a status and a JSON body (or none). `Content-Type: application/json`
/// exactly, without a charset: Apple's Python client reads the error code only then.
public struct APIResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// Headers beside `Content-Type` (`Retry-After` on a 429).
    public var headers: [String: String] = [:]
    /// Seconds to wait before answering: an armed delay (`ServerFault`).
    public var delay: Double = 0

    public init(status: Int, body: [UInt8], headers: [String: String] = [:], delay: Double = 0) {
        self.status = status
        self.body = body
        self.headers = headers
        self.delay = delay
    }

    public static func json(_ value: JSONValue, status: Int = 200) -> APIResponse {
        APIResponse(status: status, body: value.bytes(compact: true))
    }

    public static func error(_ error: APIError) -> APIResponse {
        APIResponse(status: error.status, body: error.json.bytes(compact: true))
    }

    /// A 401 as Apple sends it (no body), with why in `WWW-Authenticate` (RFC 6750) and in
    /// `reason`, for the server's log.
    public static func unauthorized(_ refusal: BearerTokenVerifier.Refusal) -> APIResponse {
        var response = APIResponse(status: 401, body: [], headers: ["WWW-Authenticate": refusal.challenge])
        response.reason = refusal.reason
        return response
    }

    /// Why the request was refused, for the server's log line; never sent.
    public var reason: String?
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
    /// Told of each error the API did not expect (a state it cannot read, a bug), which it
    /// answers as `GeneralInternalError` without detail: the detail (a path, a parser's words)
    /// is for the one who runs the server, not for its clients.
    public var internalError: @Sendable (any Error) -> Void = { _ in }

    /// Mass extensions requested, by request identifier (kept while the server runs).
    let massExtensions = MassExtensions()
    /// The store's customers answered for so far: the server speaks for the whole app, and a
    /// request naming a transaction is answered from its customer's state.
    let customers = CustomerSessions()
    /// Reads answered lately, by everything they were made from (`AnswerKey`).
    let answers = BoundedMemo<AnswerKey, APIResponse>(limit: 256)

    public init(
        session: StoreSession, signer: StoreSession.Signer, verifier: BearerTokenVerifier,
        realNow: @escaping @Sendable () -> Date
    ) {
        self.session = session
        self.signer = signer
        self.verifier = verifier
        self.realNow = realNow
    }

    /// Answers `request`; never throws: every failure is an Apple error response. The token is
    /// checked before the state is read (only its `bid` waits for the state's bundle
    /// identifier), so a request without a good token gets 401 whatever the state. The
    /// request sees one version of the state, and the next one sees every change since. A
    /// read answered before from the same version of the state, in the same simulated
    /// millisecond, is answered again without being made again (`AnswerKey`).
    public func respond(_ request: APIRequest) -> APIResponse {
        var copy = self
        copy.session = session.pinned()
        let pinned = copy
        let bid: String
        do {
            bid = try verifier.authenticate(
                authorization: request.authorization, now: realNow(),
                simulatedNow: { try? pinned.session.simulatedNow() })
        } catch {
            return .unauthorized(error)
        }
        guard let key = pinned.answerKey(request, bid: bid) else { return pinned.answer(request, bid: bid) }
        return answers.value(for: key) {
            let response = pinned.answer(request, bid: bid)
            return (response, response.status == 200 && response.delay == 0)
        }
    }

    /// `respond` after the token, on a session pinned for this request: the token's clock, the
    /// settings, the answer and its `Date` all come from one read of the state (`StatePin`).
    private func answer(_ request: APIRequest, bid: String) -> APIResponse {
        do {
            // The app's settings only: a customer's request is answered while another
            // customer's snapshot (`default`'s included) is unreadable.
            let settings = try session.appSettings()
            guard bid == settings.bundleID else {
                return .unauthorized(.rejected("bid is \(bid), not the app's bundle identifier \(settings.bundleID)"))
            }
            // Armed errors are the app's (`server-errors.json` at the top of the folder): a
            // request meets them whichever customer it names.
            let armed = try session.store.consumeServerFaults(path: "/" + request.pathComponents.joined(separator: "/"))
            var response: APIResponse
            if let error = armed.error {
                response = .error(error)
                if error == .rateLimitExceeded { response.headers["Retry-After"] = try retryAfter() }
            } else {
                let parts = request.pathComponents
                if parts.count >= 3, parts[0] == "inApps", let segment = Self.customerSegment(parts.dropFirst()) {
                    response = try acting(for: segment).route(request, settings: settings)
                } else {
                    response = try route(request, settings: settings)
                }
            }
            response.delay = armed.delay ?? 0
            return dated(inEnvironment(of: request.host, response, settings: settings))
        } catch let error as APIError {
            return dated(inEnvironment(of: request.host, .error(error), settings: nil))
        } catch {
            internalError(error)
            return inEnvironment(of: request.host, .error(.generalInternal), settings: nil)
        }
    }

    /// Through a tunnel, the host names the environment, and a host of the other environment
    /// than the state's data holds none of it: Apple's production API does not know a
    /// sandbox transaction, so every answer there is `TransactionIdNotFoundError` (the delay
    /// an armed fault holds stays). Decided on the request's own view of the settings.
    private func inEnvironment(of host: AppleHost?, _ response: APIResponse, settings: SessionSettings?)
        -> APIResponse
    {
        guard let host else { return response }
        let data = signer.environment ?? (settings ?? (try? session.appSettings()))?.environment ?? .sandbox
        guard !host.holds(data) else { return response }
        var refused = APIResponse.error(.transactionIdNotFound)
        refused.delay = response.delay
        refused.reason = "\(host.rawValue) holds \(host.environment.rawValue) data; this state's is not"
        return refused
    }

    /// The App Store's time is the simulated one: `Date` agrees with `Retry-After` and with
    /// the signed dates, for a backend whose own clock follows it.
    private func dated(_ response: APIResponse) -> APIResponse {
        var response = response
        if let now = try? session.simulatedNow() { response.headers["Date"] = HTTPDate.string(now) }
        return response
    }

    /// Apple, "Identifying rate limits": a 429 carries `Retry-After`, "a UNIX time, in
    /// milliseconds" when the next request may be sent. Here one second on, on iapsim's clock:
    /// the App Store's time in the simulation, which a backend under `iapsim clock exec` reads.
    private func retryAfter() throws -> String {
        let now = try session.simulatedNow()
        return String(Int64(((now.timeIntervalSince1970 + 1) * 1000).rounded(.down)))
    }

    private func route(_ request: APIRequest, settings: SessionSettings) throws -> APIResponse {
        let parts = request.pathComponents
        guard parts.count >= 3, parts[0] == "inApps" else { throw APIError.notFound }
        let method = request.method
        func expect(_ allowed: String) throws {
            // HEAD is answered as GET, and the HTTP layer leaves the body out (RFC 9110 §9.3.2).
            if method != allowed, !(allowed == "GET" && method == "HEAD") { throw APIError.methodNotAllowed }
        }
        /// The `*` segments of `pattern` in the path after `inApps`, or nil when it does not match.
        func match(_ pattern: String...) -> [String]? {
            guard pattern.count == parts.count - 1 else { return nil }
            var captured: [String] = []
            for (want, have) in zip(pattern, parts.dropFirst()) {
                if want == "*" { captured.append(have) } else if want != have { return nil }
            }
            return captured
        }
        if let captured = match("v1", "transactions", "appTransactions", "*") {
            let id = captured[0]
            try expect("GET")
            _ = try anyTransaction(id)
            let signed = try session.signedAppTransaction(signer: signer)
            return .json(.object([("signedAppTransactionInfo", .string(signed.jws))]))
        }
        if let captured = match("v1", "transactions", "*", "appAccountToken") {
            let id = captured[0]
            try expect("PUT")
            let body = try jsonBody(request)
            guard let text = body["appAccountToken"]?.stringValue, let token = UUID(appleString: text) else {
                throw APIError.invalidAppAccountToken
            }
            try refuseAppTransactionID(id)
            guard let original = Self.transactionNumber(id) else { throw APIError.invalidOriginalTransactionId }
            do {
                try session.setAppAccountToken(token, originalID: original)
            } catch StoreSession.AppAccountTokenRefusal.notFound {
                throw APIError.originalTransactionIdNotFound
            } catch StoreSession.AppAccountTokenRefusal.notOriginal {
                throw APIError.transactionIdIsNotOriginalTransactionId
            } catch StoreSession.AppAccountTokenRefusal.familyShared {
                throw APIError.familyTransactionNotSupported
            }
            return APIResponse(status: 200, body: [])
        }
        if let captured = match("v1", "transactions", "*", "finish") {
            try expect("POST")
            return try finish(captured[0])
        }
        if let captured = match("v1", "transactions", "*") {
            let id = captured[0]
            try expect("GET")
            // The signer finds the transaction itself (in the snapshot, else through the index).
            try refuseAppTransactionID(id)
            guard let number = Self.transactionNumber(id) else {
                throw APIError.invalidTransactionId
            }
            let signed: SignedData
            do {
                signed = try session.signedTransaction(number, signer: signer)
            } catch SimulationError.unknownTransaction {
                throw APIError.transactionIdNotFound
            }
            return .json(.object([("signedTransactionInfo", .string(signed.jws))]))
        }
        if let captured = match("v1", "history", "*") ?? match("v2", "history", "*") {
            let id = captured[0]
            try expect("GET")
            return try history(
                request, settings: settings, customer: try anyTransaction(id), version1: parts[1] == "v1")
        }
        if match("v1", "subscriptions", "extend", "mass") != nil {
            try expect("POST")
            return try massExtend(request)
        }
        if let captured = match("v1", "subscriptions", "extend", "mass", "*", "*") {
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
        if let captured = match("v1", "subscriptions", "extend", "*") {
            let id = captured[0]
            try expect("PUT")
            return try extend(id, request)
        }
        if let captured = match("v1", "subscriptions", "*") {
            let id = captured[0]
            try expect("GET")
            _ = try anyTransaction(id)
            return try statuses(request, settings: settings)
        }
        if let captured = match("v1", "refund", "lookup", "*") ?? match("v2", "refund", "lookup", "*") {
            let id = captured[0]
            try expect("GET")
            return try refunds(request, customer: try anyTransaction(id))
        }
        if let captured = match("v1", "lookup", "*") {
            try expect("GET")
            return try lookUpOrder(captured[0], settings: settings)
        }
        if let captured = match("v1", "transactions", "consumption", "*")
            ?? match("v2", "transactions", "consumption", "*")
        {
            let id = captured[0]
            try expect("PUT")
            let found = try transaction(id)
            _ = try ConsumptionInformation(try jsonBody(request), for: found)
            return APIResponse(status: 202, body: [])
        }
        if match("v1", "notifications", "test") != nil {
            try expect("POST")
            let test = try session.sendTestNotification()
            return .json(.object([("testNotificationToken", .string(test.uuid))]))
        }
        if let captured = match("v1", "notifications", "test", "*") {
            let token = captured[0]
            try expect("GET")
            guard UUID(uuidString: token) != nil else { throw APIError.invalidTestNotificationToken }
            guard
                let entry = try session.notifications(NotificationFilter(kind: .test)).first(where: {
                    $0.notification.uuid == token.lowercased()
                })
            else { throw APIError.testNotificationNotFound }
            let signed = try session.notification(entry.notification.uuid, signer: signer).signed
            return .json(
                .object([
                    ("signedPayload", .string(signed.jws)), ("sendAttempts", .array(entry.attempts.map(Self.attempt))),
                ]))
        }
        if match("v1", "notifications", "history") != nil {
            try expect("POST")
            return try notificationHistory(request)
        }
        throw APIError.notFound
    }
}

/// The mass extension requests a server has answered, for their status endpoint.
final class MassExtensions: @unchecked Sendable {
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
