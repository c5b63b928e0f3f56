import Foundation
import IAPSimKit

/// StoreKit 2's `Product`: one product of the `.storekit` file, in the buyer's storefront and
/// locale, as `iapsim list-products` shows it.
public struct Product: Identifiable, Equatable, Hashable, Sendable {
    public let id: String
    public let type: Product.ProductType
    public let displayName: String
    public let description: String
    public let price: Decimal
    public let displayPrice: String
    public let isFamilyShareable: Bool
    public let subscription: Product.SubscriptionInfo?
    /// The product as JSON (made when asked for: most apps never read it).
    public var jsonRepresentation: Data {
        var members: [String: Any] = [
            "productID": id, "type": type.rawValue, "displayName": displayName, "description": description,
            "displayPrice": displayPrice, "familyShareable": isFamilyShareable,
        ]
        if let group = subscription?.subscriptionGroupID { members["subscriptionGroupID"] = group }
        return (try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])) ?? Data()
    }
    let currencyCode: String
    let localeIdentifier: String

    /// The format style of `displayPrice`: the storefront's currency in the session's locale.
    public var priceFormatStyle: Decimal.FormatStyle.Currency {
        Decimal.FormatStyle.Currency(code: currencyCode, locale: Locale(identifier: localeIdentifier))
    }

    public static func == (lhs: Product, rhs: Product) -> Bool {
        lhs.id == rhs.id && lhs.price == rhs.price && lhs.displayName == rhs.displayName
            && lhs.localeIdentifier == rhs.localeIdentifier && lhs.currencyCode == rhs.currencyCode
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// The products of `identifiers` the store has; identifiers it lacks are left out, as on
    /// a device. `iapsim list-products`'s operation (`requestProducts`).
    /// - Throws: the simulated Load Products error, if the session sets one.
    public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
    where Identifiers.Element == String {
        do {
            return try StoreRuntime.shared.withStore { catalog, session in
                let response = try session.requestProducts(identifiers, in: catalog)
                let locale = response.localeIdentifier
                let formatter = PriceFormatter(currencyCode: catalog.storefront.currencyCode, localeIdentifier: locale)
                return response.products.map {
                    Product($0, catalog: catalog, locale: locale, formatter: formatter, status: response.status)
                }
            }
        } catch {
            throw StoreKit2Errors.map(error)
        }
    }

    init(
        _ product: IAPSimKit.Product, catalog: Catalog, locale: String, formatter: PriceFormatter,
        status: AccountStatus
    ) {
        let localization = product.localization(for: locale, fallback: catalog.store.localeIdentifier)
        id = product.id
        type = ProductType(product.type)
        displayName = localization?.displayName ?? product.referenceName
        description = localization?.description ?? ""
        price = product.price
        displayPrice = formatter.string(for: product.price)
        isFamilyShareable = product.familyShareable
        subscription = product.subscription.map {
            SubscriptionInfo($0, formatter: formatter, eligible: status.isEligibleForIntroOffer(group: $0.groupID))
        }
        currencyCode = formatter.currencyCode
        localeIdentifier = locale
    }

    /// The newest transaction for this product.
    public var latestTransaction: VerificationResult<Transaction>? {
        get async { await Transaction.latest(for: id) }
    }

    /// The account's entitlement to this product, if it has one.
    public var currentEntitlement: VerificationResult<Transaction>? {
        get async { await Transaction.currentEntitlement(for: id) }
    }

    /// The account's entitlements to this product (Apple, iOS 18).
    public var currentEntitlements: Transaction.Transactions { Transaction.currentEntitlements(for: id) }
}

extension Product {
    /// `Product.ProductType`.
    public struct ProductType: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let consumable = ProductType(rawValue: "Consumable")
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
        public static let nonRenewable = ProductType(rawValue: "Non-Renewable")
        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable")

        public var localizedDescription: String { kind?.appleName ?? rawValue }

        /// The library's kind, nil for a value of another Apple release.
        var kind: IAPSimKit.ProductType? {
            IAPSimKit.ProductType.allCases.first { ProductType($0) == self }
        }

        init(_ type: IAPSimKit.ProductType) {
            switch type {
            case .consumable: self = .consumable
            case .nonConsumable: self = .nonConsumable
            case .nonRenewable: self = .nonRenewable
            case .autoRenewable: self = .autoRenewable
            }
        }
    }

    /// `Product.SubscriptionPeriod`.
    public struct SubscriptionPeriod: Equatable, Hashable, Sendable, CustomDebugStringConvertible {
        public let value: Int
        public let unit: Product.SubscriptionPeriod.Unit

        public enum Unit: Int, Equatable, Hashable, Sendable, CaseIterable {
            case day, week, month, year

            public var localizedDescription: String {
                switch self {
                case .day: "Day"
                case .week: "Week"
                case .month: "Month"
                case .year: "Year"
                }
            }
        }

        public static let everyThreeDays = SubscriptionPeriod(value: 3, unit: .day)
        public static let weekly = SubscriptionPeriod(value: 1, unit: .week)
        public static let everyTwoWeeks = SubscriptionPeriod(value: 2, unit: .week)
        public static let monthly = SubscriptionPeriod(value: 1, unit: .month)
        public static let everyTwoMonths = SubscriptionPeriod(value: 2, unit: .month)
        public static let everyThreeMonths = SubscriptionPeriod(value: 3, unit: .month)
        public static let everySixMonths = SubscriptionPeriod(value: 6, unit: .month)
        public static let yearly = SubscriptionPeriod(value: 1, unit: .year)

        init(value: Int, unit: Unit) {
            self.value = value
            self.unit = unit
        }

        init(_ period: IAPSimKit.SubscriptionPeriod) {
            value = period.value
            switch period.unit {
            case .day: unit = .day
            case .week: unit = .week
            case .month: unit = .month
            case .year: unit = .year
            }
        }

        public var debugDescription: String { "\(value) \(unit.localizedDescription)\(value == 1 ? "" : "s")" }
    }
}
