import Foundation
import IAPSimKit

/// StoreKit 1's `SKProduct`: a product of the `.storekit` file, in the buyer's storefront and
/// locale.
open class SKProduct: NSObject, @unchecked Sendable {
    open private(set) var productIdentifier: String = ""
    open private(set) var localizedTitle: String = ""
    open private(set) var localizedDescription: String = ""
    open private(set) var price: NSDecimalNumber = .zero
    /// The locale prices are shown in, with the storefront's currency
    /// (`en_US@currency=USD`), so a `NumberFormatter` given it shows `displayPrice`.
    open private(set) var priceLocale: Locale = Locale(identifier: "en_US")
    open private(set) var isDownloadable: Bool = false
    open private(set) var isFamilyShareable: Bool = false
    open private(set) var contentVersion: String = ""
    open private(set) var downloadContentVersion: String = ""
    open private(set) var downloadContentLengths: [NSNumber] = []
    open private(set) var subscriptionPeriod: SKProductSubscriptionPeriod?
    open private(set) var introductoryPrice: SKProductDiscount?
    open private(set) var subscriptionGroupIdentifier: String?
    open private(set) var discounts: [SKProductDiscount] = []

    public override init() { super.init() }

    init(_ product: IAPSimKit.Product, catalog: Catalog, locale: String) {
        super.init()
        let localization = product.localization(for: locale, fallback: catalog.store.localeIdentifier)
        productIdentifier = product.id
        localizedTitle = localization?.displayName ?? product.referenceName
        localizedDescription = localization?.description ?? ""
        price = NSDecimalNumber(decimal: product.price)
        let priceLocale = Locale(identifier: locale + "@currency=" + catalog.storefront.currencyCode)
        self.priceLocale = priceLocale
        isFamilyShareable = product.familyShareable
        if let subscription = product.subscription {
            subscriptionPeriod = SKProductSubscriptionPeriod(subscription.period)
            subscriptionGroupIdentifier = subscription.groupID
            introductoryPrice = subscription.introductoryOffer.map {
                SKProductDiscount($0, type: .introductory, locale: priceLocale)
            }
            discounts = subscription.promotionalOffers.map {
                SKProductDiscount($0, type: .subscription, locale: priceLocale)
            }
        }
    }

    /// `SKProduct.PeriodUnit`.
    public enum PeriodUnit: UInt, Sendable {
        case day = 0
        case week = 1
        case month = 2
        case year = 3
    }
}

/// `SKProductSubscriptionPeriod`.
open class SKProductSubscriptionPeriod: NSObject, @unchecked Sendable {
    open private(set) var numberOfUnits: Int = 0
    open private(set) var unit: SKProduct.PeriodUnit = .day

    init(_ period: IAPSimKit.SubscriptionPeriod) {
        super.init()
        numberOfUnits = period.value
        switch period.unit {
        case .day: unit = .day
        case .week: unit = .week
        case .month: unit = .month
        case .year: unit = .year
        }
    }
}

/// `SKProductDiscount`: an introductory or promotional offer of a subscription.
open class SKProductDiscount: NSObject, @unchecked Sendable {
    public enum PaymentMode: UInt, Sendable {
        case payAsYouGo = 0
        case payUpFront = 1
        case freeTrial = 2
    }

    public enum `Type`: UInt, Sendable {
        case introductory = 0
        case subscription = 1
    }

    open private(set) var price: NSDecimalNumber = .zero
    open private(set) var priceLocale: Locale = Locale(identifier: "en_US")
    open private(set) var identifier: String?
    open private(set) var subscriptionPeriod: SKProductSubscriptionPeriod
    open private(set) var numberOfPeriods: Int = 0
    open private(set) var paymentMode: SKProductDiscount.PaymentMode = .payAsYouGo
    open private(set) var type: SKProductDiscount.`Type` = .introductory

    init(_ offer: SubscriptionOffer, type: SKProductDiscount.`Type`, locale: Locale) {
        subscriptionPeriod = SKProductSubscriptionPeriod(offer.period)
        super.init()
        price = NSDecimalNumber(decimal: offer.price)
        priceLocale = locale
        identifier = offer.id
        numberOfPeriods = offer.periodCount
        switch offer.paymentMode {
        case .payAsYouGo: paymentMode = .payAsYouGo
        case .payUpFront: paymentMode = .payUpFront
        case .freeTrial: paymentMode = .freeTrial
        }
        self.type = type
    }
}

/// `SKStorefront`: the account's App Store country.
open class SKStorefront: NSObject, @unchecked Sendable {
    open private(set) var countryCode: String
    open private(set) var identifier: String

    init(countryCode: String) {
        self.countryCode = countryCode
        identifier = IAPSimKit.Storefront.named(countryCode)?.appleID ?? ""
        super.init()
    }
}
