import Foundation
import IAPSimJSON

/// Apple's legacy receipt validation endpoint, `POST /verifyReceipt` ("verifyReceipt",
/// "requestBody", "responseBody", "status"), answered from the simulator's state: the
/// receipt sent is verified against iapsim's root and read back as `receipt`, and what the
/// App Store knows now — `latest_receipt_info` (newest first), `pending_renewal_info` and a
/// fresh `latest_receipt` — comes from the account, for receipts holding auto-renewable
/// subscriptions, as Apple's does. Every answer is HTTP 200 with a `status`; nothing a client
/// sends makes it fail otherwise, but a status armed with `iapsim server-error`
/// (`TransientReceiptStatus`) is answered instead, before the receipt is read.
public struct VerifyReceiptEndpoint: Sendable {
    /// "status": 0, or why the receipt was not validated.
    public enum Status: Int, Sendable, CaseIterable {
        case valid = 0
        /// The request was not an HTTP POST.
        case notPost = 21000
        /// The receipt-data is malformed (and here: the body is not a JSON object with it).
        case malformedReceiptData = 21002
        /// The receipt could not be authenticated: not signed by iapsim's chain, or altered.
        case notAuthenticated = 21003
        /// The password is not the app's shared secret (`iapsim settings set shared-secret`).
        case sharedSecretMismatch = 21004
        /// A test (sandbox) receipt sent to the production environment.
        case sandboxReceiptSentToProduction = 21007
        /// A production receipt sent to the test environment.
        case productionReceiptSentToSandbox = 21008
        /// Internal data access error: the state could not be read.
        case internalDataAccessError = 21009
        /// The user account cannot be found or has been deleted: the receipt's customer was
        /// removed from the store (`iapsim accounts remove`).
        case accountNotFound = 21010
    }

    public var session: StoreSession
    public var signer: StoreSession.Signer
    /// Told of each state error answered as 21009, for the one who runs the server.
    public var internalError: @Sendable (any Error) -> Void = { _ in }

    public init(session: StoreSession, signer: StoreSession.Signer) {
        self.session = session
        self.signer = signer
    }

    /// Answers one request: the JSON body to send with HTTP 200. `host` is the Apple host a
    /// tunnel named (`buy.itunes.apple.com`, `sandbox.itunes.apple.com`), nil at iapsim's own
    /// address.
    public func respond(method: String, body: [UInt8], host: AppleHost? = nil) -> [UInt8] {
        var pinned = self
        pinned.session = session.pinned()
        return pinned.response(method: method, body: body, host: host).bytes(compact: true)
    }

    public func response(method: String, body: [UInt8], host: AppleHost? = nil) -> JSONValue {
        guard method == "POST" else { return Self.status(.notPost, environment: nil) }
        // The receipt's Base64 text is read where it lies in the body: the body and the
        // decoded receipt are the only copies of it held.
        guard let (request, deferred) = try? JSONValue.parse(body, deferringString: "receipt-data"),
            case .object = request, let receiptData = deferred
        else { return Self.status(.malformedReceiptData, environment: nil) }
        let settings: SessionSettings
        do {
            settings = try session.appSettings()  // the app's: no customer's snapshot read
        } catch {
            internalError(error)
            return Self.status(.internalDataAccessError, environment: nil)
        }
        let environment = signer.environment ?? settings.environment
        // Apple's "status": a host of the other environment answers 21007 (a test receipt sent
        // to production) or 21008, whatever the receipt, as a backend's retry logic expects.
        if let status = host?.verifyReceiptStatus(for: environment) {
            return .object([("status", .number(String(status)))])
        }
        let production = environment == .production
        let name = production ? "Production" : "Sandbox"
        do {
            // Armed statuses are the app's, as the API's errors are: met whichever customer.
            if let armed = try session.store.consumeServerFaults(path: TransientReceiptStatus.path).receiptStatus {
                return armed.body(environment: name)
            }
        } catch {
            internalError(error)
            return Self.status(.internalDataAccessError, environment: name)
        }
        let inspection: ReceiptInspection
        do {
            let anchors = signer.identity.receiptTrustAnchors
            if let direct = try ReceiptInspection.inspect(jsonStringContent: body[receiptData], trusting: anchors) {
                inspection = direct
            } else {
                // Escapes beyond `\/` (a `\u` one): the text decoded as a string first.
                guard
                    let text = (try? JSONValue.parse(Array(body[receiptData.lowerBound - 1...receiptData.upperBound])))?
                        .stringValue
                else { return Self.status(.malformedReceiptData, environment: name) }
                inspection = try ReceiptInspection.inspect(Array(text.utf8), trusting: anchors)
            }
        } catch {
            return Self.status(.malformedReceiptData, environment: name)
        }
        guard inspection.verifies else { return Self.status(.notAuthenticated, environment: name) }
        let receipt = inspection.receipt
        if receipt.isProduction != production {
            return Self.status(
                production ? .sandboxReceiptSentToProduction : .productionReceiptSentToSandbox, environment: name)
        }
        let hasSubscriptions = receipt.inAppPurchases.contains { $0.webOrderLineItemID != nil }
        let password = request["password"]?.stringValue
        if let secret = settings.sharedSecret, hasSubscriptions || password != nil, password != secret {
            return Self.status(.sharedSecretMismatch, environment: name)
        }
        let excludeOld = request["exclude-old-transactions"]?.boolValue ?? false
        do {
            guard let customer = try customer(of: receipt) else {
                return Self.status(.accountNotFound, environment: name)
            }
            return try valid(
                receipt, of: customer, environment: environment, name: name,
                subscriptions: hasSubscriptions, excludeOldTransactions: excludeOld)
        } catch {
            internalError(error)
            return Self.status(.internalDataAccessError, environment: name)
        }
    }

    /// The session of the customer whose receipt it is. The server answers for every customer
    /// of the store, and a receipt names its purchases: the first one's transaction identifier
    /// tells its customer (`PurchaseState.Account.customerNumber`), as a transaction identifier
    /// does on the App Store Server API. A receipt with no purchase names no customer, and is
    /// answered for the one the server acts for (`default`). One whose customer the store no
    /// longer has (removed, or being removed) is nil: Apple answers 21010 for an account that
    /// is gone, never another account's purchases.
    private func customer(of receipt: AppReceipt) throws -> StoreSession? {
        guard let first = receipt.inAppPurchases.first, let id = UInt64(first.transactionID), id > 0 else {
            return session
        }
        guard let name = try session.store.account(ofTransaction: id) else { return nil }
        return name == session.store.location.account ? session : session.forAccount(name)
    }

    private func valid(
        _ receipt: AppReceipt, of session: StoreSession, environment: AppStoreEnvironment, name: String,
        subscriptions: Bool, excludeOldTransactions: Bool
    ) throws -> JSONValue {
        let (state, moment) = try session.snapshot()
        var members: [(String, JSONValue)] = [
            ("status", .int(0)), ("environment", .string(name)),
            (
                "receipt",
                LegacyReceiptJSON.receipt(
                    receipt, originalPurchaseDate: state.account.firstUseDate ?? receipt.creationDate,
                    requestDate: moment.now, appAppleID: moment.settings.appAppleID,
                    cancellationReason: { purchase in
                        guard purchase.cancellationDate != nil, let id = UInt64(purchase.transactionID) else {
                            return nil
                        }
                        let transaction = state.account.current(id: id) ?? (try? session.store.transaction(id))
                        return transaction?.revocationReason
                    })
            ),
        ]
        guard subscriptions else { return .object(members) }
        var latest: [Transaction] = []
        let history = try session.history()
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (`history` streams the journal: it is no Sequence)
        try history.forEach { entry in
            if entry.transaction.isInReceipt(finished: entry.isFinished) { latest.append(entry.transaction) }
        }
        if excludeOldTransactions {
            // Apple: "only the latest renewal transaction for any subscriptions".
            let newest = Dictionary(
                latest.filter { $0.productType == .autoRenewable }.map { ($0.originalID, $0.id) }, uniquingKeysWith: max
            )
            latest.removeAll { $0.productType == .autoRenewable && newest[$0.originalID] != $0.id }
        }
        latest.sort { ($0.purchaseDate, $0.id) > ($1.purchaseDate, $1.id) }
        members.append(("latest_receipt_info", .array(latest.map(LegacyReceiptJSON.latestReceiptInfo))))
        // Apple, "responseBody.Pending_renewal_info": a subscription the customer cancelled in
        // the Billing Grace Period is removed from it.
        let renewals = SubscriptionEngine.chains(in: state).filter { !$0.info.cancelledInGracePeriod }.map {
            info, latest in
            LegacyReceiptJSON.pendingRenewalInfo(
                info, latest: latest, state: SubscriptionEngine.renewalState(info, latest: latest, at: moment.now))
        }
        members.append(("pending_renewal_info", .array(renewals)))
        let fresh = try session.appReceipt(
            StoreSession.ReceiptRequest(
                deviceIdentifier: StoreSession.ReceiptRequest.defaultDeviceIdentifier, environment: environment))
        let identity = try signer.identity.withReceiptChain(lockTimeout: session.store.location.lockTimeout)
        members.append(("latest_receipt", .string(Data(try identity.signReceipt(fresh)).base64EncodedString())))
        return .object(members)
    }

    private static func status(_ status: Status, environment: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [("status", .int(status.rawValue))]
        if let environment { members.append(("environment", .string(environment))) }
        return .object(members)
    }
}
