import Foundation
import IAPSimJSON

/// A signed item and what it says.
public struct SignedData: Sendable, Equatable {
    /// The compact JWS, as StoreKit's `jwsRepresentation` and the App Store Server API give it.
    public var jws: String
    /// Its decoded payload.
    public var payload: JSONValue
}

/// Signing only reads: the snapshot is read whole without the lock (it is replaced
/// atomically) and time is brought up to date in memory, so a server signing under load never
/// queues behind the CLI's lock.
extension StoreSession {
    /// How to sign: the identity, and the environment when one is asked for over the
    /// session's `environment` setting.
    ///
    /// A signer made with `reloading: true` (`serve`, `listen`) signs with the set its folder
    /// holds at each signing: after `iapsim certs rotate` it reads the new one (`current`
    /// changed) and keeps the one it has while the folder cannot be read.
    public struct Signer: Sendable {
        private let source: SigningIdentitySource
        public var environment: AppStoreEnvironment?

        public var identity: SigningIdentity { source.current() }

        public init(identity: SigningIdentity, environment: AppStoreEnvironment? = nil, reloading: Bool = false) {
            source = SigningIdentitySource(identity, reloading: reloading)
            self.environment = environment
        }
    }

    /// Transaction `id` as a signed JWSTransaction, dated now on the simulated clock.
    /// - Throws: `SimulationError.unknownTransaction` when the account has no such transaction.
    public func signedTransaction(_ id: UInt64, signer: Signer) throws -> SignedData {
        try peek { state, moment in
            guard state.hasTransaction(id), let transaction = try state.account.current(id: id) ?? store.transaction(id)
            else { throw SimulationError.unknownTransaction(id: id) }
            let signed = signer.identity.signedTransaction(transaction, context: context(state, moment, signer))
            return SignedData(jws: signed.jws, payload: signed.payload)
        }
    }

    /// The renewal info of the subscription chain whose current or next product is
    /// `selector`, or whose original transaction identifier it is, as a signed JWSRenewalInfo.
    /// - Throws: `SimulationError.notSubscribed` when no chain matches.
    public func signedRenewalInfo(_ selector: String, signer: Signer) throws -> SignedData {
        try peek { state, moment in
            let chain = SubscriptionEngine.chains(in: state).last { info, _ in
                info.currentProductID == selector || info.autoRenewProductID == selector
                    || String(info.originalID) == selector
            }
            guard let (info, latest) = chain else { throw SimulationError.notSubscribed(productID: selector) }
            let renewalState = SubscriptionEngine.renewalState(info, latest: latest, at: moment.now)
            // From the chains alone: a signer under load builds no whole account status.
            let winBack = eligibleWinBackOfferIDs(
                productID: info.currentProductID, state: renewalState, ownership: latest.ownershipType,
                groupActive: SubscriptionEngine.isGroupActive(info.subscriptionGroupID, in: state, at: moment.now))
            return Self.sign(
                SignedPayloads.renewalInfo(
                    info, latest: latest, state: renewalState, context: context(state, moment, signer),
                    eligibleWinBackOfferIDs: winBack), signer)
        }
    }

    /// `AppTransaction.shared` on the device: the app transaction, signed, unless the session
    /// simulates an App Transaction error.
    /// - Throws: `SimulationError.simulated` with that error.
    public func appTransaction(signer: Signer) throws -> SignedData {
        if let error = try settings().simulatedError(.appTransactionError) {
            throw SimulationError.simulated(api: "AppTransaction.shared", error: error)
        }
        return try signedAppTransaction(signer: signer)
    }

    /// The app transaction, signed: what the App Store Server API's Get App Transaction Info
    /// returns (and `appTransaction(signer:)` on the device).
    public func signedAppTransaction(signer: Signer) throws -> SignedData {
        try peek { state, moment in
            let context = context(state, moment, signer)
            return Self.sign(
                SignedPayloads.appTransaction(
                    originalPurchaseDate: state.account.firstUseDate ?? moment.now, context: context), signer)
        }
    }

    /// The signed form of each of `transactions`, in one pass over the state, for
    /// `jwsRepresentation` in lists.
    public func signedTransactions(_ transactions: [Transaction], signer: Signer) throws -> [UInt64: String] {
        try peek { state, moment in
            let context = context(state, moment, signer)
            var signed: [UInt64: String] = [:]
            for transaction in transactions {
                signed[transaction.id] = signer.identity.signedTransaction(transaction, context: context).jws
            }
            return signed
        }
    }

    /// Signs transactions as `signedTransactions` does, one at a time, for a list signed as
    /// it is printed: what the payloads share (the app, the environment, the signing date) is
    /// read once, now, under the lock. Each row is signed once, without the signing memos: a
    /// listing's rows are all different, so a look-up would find nothing and empty the memos
    /// every 64 rows.
    public func transactionSigner(_ signer: Signer) throws -> @Sendable (Transaction) -> String {
        let context = try transact { state, moment in self.context(state, moment, signer) }
        let identity = signer.identity
        return { transaction in
            identity.signOnce(
                SignedPayloads.transaction(transaction, context: context), environment: context.environment)
        }
    }

    private func context(_ state: PurchaseState, _ moment: Moment, _ signer: Signer) -> SigningContext {
        signingContext(state, moment, signer)
    }

    /// What every payload signed now shares. Production data without the app's Apple ID is
    /// told of (`StoreEvent.productionWithoutAppAppleID`), so the front end can say so.
    func signingContext(_ state: PurchaseState, _ moment: Moment, _ signer: Signer) -> SigningContext {
        let environment = signer.environment ?? moment.settings.environment
        if environment == .production, moment.settings.appAppleID == nil { events(.productionWithoutAppAppleID) }
        return SigningContext(
            bundleID: moment.settings.bundleID, appAppleID: moment.settings.appAppleID, environment: environment,
            signedDate: moment.now,
            appTransactionID: state.account.appTransactionID
                ?? Self.appTransactionID(firstUse: moment.now, customer: state.account.customerNumber))
    }

    private static func sign(_ payload: JSONValue, _ signer: Signer) -> SignedData {
        let environment: AppStoreEnvironment =
            payload["environment"]?.stringValue.flatMap(AppStoreEnvironment.init(rawValue:))
            ?? payload["receiptType"]?.stringValue.flatMap(AppStoreEnvironment.init(rawValue:)) ?? .sandbox
        return SignedData(jws: signer.identity.sign(payload, environment: environment), payload: payload)
    }
}
