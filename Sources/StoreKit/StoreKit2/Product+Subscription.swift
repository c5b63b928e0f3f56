import Foundation
import IAPSimJSON
import IAPSimKit

extension Product {
    /// `Product.SubscriptionInfo`: an auto-renewable subscription's group, period and offers.
    public struct SubscriptionInfo: Equatable, Hashable, Sendable {
        public let subscriptionGroupID: String
        public let subscriptionPeriod: Product.SubscriptionPeriod
        public let introductoryOffer: Product.SubscriptionOffer?
        public let promotionalOffers: [Product.SubscriptionOffer]
        public let winBackOffers: [Product.SubscriptionOffer]
        /// The level in the group: 1 is the highest.
        public let groupLevel: Int
        public let groupDisplayName: String
        let eligibleNow: Bool

        init(_ info: IAPSimKit.SubscriptionInfo, formatter: PriceFormatter, eligible: Bool) {
            subscriptionGroupID = info.groupID
            subscriptionPeriod = SubscriptionPeriod(info.period)
            introductoryOffer = info.introductoryOffer.map { SubscriptionOffer($0, type: .introductory, formatter) }
            promotionalOffers = info.promotionalOffers.map { SubscriptionOffer($0, type: .promotional, formatter) }
            winBackOffers = info.winBackOffers.map { SubscriptionOffer($0, type: .winBack, formatter) }
            groupLevel = info.groupLevel
            groupDisplayName = info.groupName
            eligibleNow = eligible
        }

        /// Whether the account may still take the group's introductory offer.
        public var isEligibleForIntroOffer: Bool {
            get async { await Self.isEligibleForIntroOffer(for: subscriptionGroupID) }
        }

        public static func isEligibleForIntroOffer(for groupID: String) async -> Bool {
            let eligible = try? StoreRuntime.shared.withStore { _, session in
                try session.status().isEligibleForIntroOffer(group: groupID)
            }
            return eligible ?? true
        }

        /// The statuses of the group's subscriptions the account has (`iapsim status`).
        public var status: [Product.SubscriptionInfo.Status] {
            get async throws { try await Self.status(for: subscriptionGroupID) }
        }

        /// The statuses of a group's subscriptions.
        /// - Throws: the simulated Subscription Status error, if the session sets one.
        public static func status(for groupID: String) async throws -> [Product.SubscriptionInfo.Status] {
            do {
                let runtime = StoreRuntime.shared
                return try runtime.withStore { _, session in
                    let status = try session.status(launchingTheApp: true)
                    if let error = status.subscriptionStatusError {
                        throw SimulationError.simulated(api: "", error: error)
                    }
                    let signer = try runtime.signer()
                    return try status.subscriptions.filter { $0.subscriptionGroupID == groupID }.compactMap { chain in
                        guard let transaction = try Verifier.result(chain.transaction) else { return nil }
                        let signed = try session.signedRenewalInfo(String(chain.originalID), signer: signer)
                        let (payload, error): (JSONValue, VerificationResult<RenewalInfo>.VerificationError?) =
                            Verifier.check(signed.jws, identity: signer.identity)
                        let info = RenewalInfo(payload: payload, jws: signed.jws)
                        let renewal: VerificationResult<RenewalInfo> =
                            status.verificationError.map { .unverified(info, Verifier.verificationError($0)) }
                            ?? error.map { .unverified(info, $0) } ?? .verified(info)
                        return Status(state: RenewalState(chain.state), transaction: transaction, renewalInfo: renewal)
                    }
                }
            } catch {
                throw StoreKit2Errors.map(error)
            }
        }

        /// `Product.SubscriptionInfo.Status`.
        public struct Status: Equatable, Hashable, Sendable {
            public let state: Product.SubscriptionInfo.RenewalState
            public let transaction: VerificationResult<Transaction>
            public let renewalInfo: VerificationResult<Product.SubscriptionInfo.RenewalInfo>
        }

        /// `Product.SubscriptionInfo.RenewalState`.
        public struct RenewalState: RawRepresentable, Equatable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            public static let subscribed = RenewalState(rawValue: 1)
            public static let expired = RenewalState(rawValue: 2)
            public static let inBillingRetryPeriod = RenewalState(rawValue: 3)
            public static let inGracePeriod = RenewalState(rawValue: 4)
            public static let revoked = RenewalState(rawValue: 5)

            public var localizedDescription: String { description }
            public var description: String {
                switch self {
                case .subscribed: "subscribed"
                case .expired: "expired"
                case .inBillingRetryPeriod: "inBillingRetryPeriod"
                case .inGracePeriod: "inGracePeriod"
                case .revoked: "revoked"
                default: "\(rawValue)"
                }
            }

            init(_ state: AccountStatus.SubscriptionStatus.State) {
                switch state {
                case .subscribed: self = .subscribed
                case .expired: self = .expired
                case .inBillingRetryPeriod: self = .inBillingRetryPeriod
                case .inGracePeriod: self = .inGracePeriod
                case .revoked: self = .revoked
                }
            }
        }

        /// `Product.SubscriptionInfo.RenewalInfo`, read from the signed JWSRenewalInfo.
        public struct RenewalInfo: Equatable, Hashable, Sendable, _StoreKitSignedItem {
            public let originalTransactionID: UInt64
            public let currentProductID: String
            public let willAutoRenew: Bool
            public let autoRenewPreference: String?
            public let expirationReason: Product.SubscriptionInfo.RenewalInfo.ExpirationReason?
            public let isInBillingRetry: Bool
            public let gracePeriodExpirationDate: Date?
            public let priceIncreaseStatus: Product.SubscriptionInfo.RenewalInfo.PriceIncreaseStatus
            public let offerType: Transaction.OfferType?
            public let offerID: String?
            public let recentSubscriptionStartDate: Date
            public let renewalDate: Date?
            public let renewalPrice: Decimal?
            public let currency: Locale.Currency?
            public let appAccountToken: UUID?
            public let eligibleWinBackOfferIDs: [String]
            public let environment: AppStore.Environment
            public let signedDate: Date
            public let appTransactionID: String
            public let jsonRepresentation: Data
            public let _jws: String

            public var deviceVerification: Data { Data() }

            public struct ExpirationReason: RawRepresentable, Equatable, Hashable, Sendable {
                public let rawValue: Int
                public init(rawValue: Int) { self.rawValue = rawValue }
                public static let autoRenewDisabled = ExpirationReason(rawValue: 1)
                public static let billingError = ExpirationReason(rawValue: 2)
                public static let didNotConsentToPriceIncrease = ExpirationReason(rawValue: 3)
                public static let productUnavailable = ExpirationReason(rawValue: 4)
                public static let unknown = ExpirationReason(rawValue: 5)
            }

            public enum PriceIncreaseStatus: Equatable, Hashable, Sendable {
                case noIncreasePending, pending, agreed
            }

            init(payload: JSONValue, jws: String) {
                func date(_ key: String) -> Date? { payload[key].flatMap(Transaction.date) }
                func int(_ key: String) -> Int? { payload[key]?.intValue }
                originalTransactionID = UInt64(payload["originalTransactionId"]?.stringValue ?? "") ?? 0
                currentProductID = payload["productId"]?.stringValue ?? ""
                willAutoRenew = int("autoRenewStatus") == 1
                autoRenewPreference = payload["autoRenewProductId"]?.stringValue
                expirationReason = int("expirationIntent").map(ExpirationReason.init(rawValue:))
                isInBillingRetry = payload["isInBillingRetryPeriod"]?.boolValue ?? false
                gracePeriodExpirationDate = date("gracePeriodExpiresDate")
                switch int("priceIncreaseStatus") {
                case 0: priceIncreaseStatus = .pending
                case 1: priceIncreaseStatus = .agreed
                default: priceIncreaseStatus = .noIncreasePending
                }
                offerType = int("offerType").map(Transaction.OfferType.init(rawValue:))
                offerID = payload["offerIdentifier"]?.stringValue
                recentSubscriptionStartDate = date("recentSubscriptionStartDate") ?? Date(timeIntervalSince1970: 0)
                renewalDate = date("renewalDate")
                if case .number(let milliunits)? = payload["renewalPrice"], let value = Decimal(string: milliunits) {
                    renewalPrice = value / 1000
                } else {
                    renewalPrice = nil
                }
                currency = payload["currency"]?.stringValue.map { Locale.Currency($0) }
                appAccountToken = payload["appAccountToken"]?.stringValue.flatMap(UUID.init(uuidString:))
                eligibleWinBackOfferIDs =
                    payload["eligibleWinBackOfferIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
                environment = AppStore.Environment(rawValue: payload["environment"]?.stringValue ?? "Sandbox")
                signedDate = date("signedDate") ?? Date()
                appTransactionID = payload["appTransactionId"]?.stringValue ?? ""
                jsonRepresentation = Data(payload.bytes(compact: true))
                _jws = jws
            }

            public static func == (lhs: RenewalInfo, rhs: RenewalInfo) -> Bool { lhs._jws == rhs._jws }
            public func hash(into hasher: inout Hasher) { hasher.combine(_jws) }
        }
    }

    /// `Product.SubscriptionOffer`: an introductory, promotional or win-back offer.
    public struct SubscriptionOffer: Equatable, Hashable, Sendable {
        public let id: String?
        public let type: Product.SubscriptionOffer.OfferType
        public let price: Decimal
        public let displayPrice: String
        public let period: Product.SubscriptionPeriod
        public let periodCount: Int
        public let paymentMode: Product.SubscriptionOffer.PaymentMode

        public struct OfferType: RawRepresentable, Equatable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let introductory = OfferType(rawValue: "introductory")
            public static let promotional = OfferType(rawValue: "promotional")
            public static let winBack = OfferType(rawValue: "winBack")
        }

        public struct PaymentMode: RawRepresentable, Equatable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let freeTrial = PaymentMode(rawValue: "FreeTrial")
            public static let payAsYouGo = PaymentMode(rawValue: "PayAsYouGo")
            public static let payUpFront = PaymentMode(rawValue: "PayUpFront")
        }

        init(_ offer: IAPSimKit.SubscriptionOffer, type: OfferType, _ formatter: PriceFormatter) {
            id = offer.id
            self.type = type
            price = offer.price
            displayPrice = formatter.string(for: offer.price)
            period = Product.SubscriptionPeriod(offer.period)
            periodCount = offer.periodCount
            switch offer.paymentMode {
            case .freeTrial: paymentMode = .freeTrial
            case .payAsYouGo: paymentMode = .payAsYouGo
            case .payUpFront: paymentMode = .payUpFront
            }
        }
    }
}
