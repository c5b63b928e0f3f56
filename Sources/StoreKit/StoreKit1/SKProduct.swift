import Foundation
import IAPSimKit

/// StoreKit 1's `SKProduct`: a product of the `.storekit` file, in the buyer's storefront and
/// locale.
open class SKProduct: NSObject, @unchecked Sendable {
    var _productIdentifier: String = ""
    open var productIdentifier: String { _productIdentifier }
    var _localizedTitle: String = ""
    open var localizedTitle: String { _localizedTitle }
    var _localizedDescription: String = ""
    open var localizedDescription: String { _localizedDescription }
    var _price: NSDecimalNumber = .zero
    open var price: NSDecimalNumber { _price }
    /// The locale prices are shown in, with the storefront's currency
    /// (`en_US@currency=USD`), so a `NumberFormatter` given it shows `displayPrice`.
    var _priceLocale: Locale = Locale(identifier: "en_US")
    open var priceLocale: Locale { _priceLocale }
    var _isDownloadable: Bool = false
    open var isDownloadable: Bool { _isDownloadable }
    var _isFamilyShareable: Bool = false
    open var isFamilyShareable: Bool { _isFamilyShareable }
    var _contentVersion: String = ""
    open var contentVersion: String { _contentVersion }
    var _downloadContentVersion: String = ""
    open var downloadContentVersion: String { _downloadContentVersion }
    var _downloadContentLengths: [NSNumber] = []
    open var downloadContentLengths: [NSNumber] { _downloadContentLengths }
    var _subscriptionPeriod: SKProductSubscriptionPeriod?
    open var subscriptionPeriod: SKProductSubscriptionPeriod? { _subscriptionPeriod }
    var _introductoryPrice: SKProductDiscount?
    open var introductoryPrice: SKProductDiscount? { _introductoryPrice }
    var _subscriptionGroupIdentifier: String?
    open var subscriptionGroupIdentifier: String? { _subscriptionGroupIdentifier }
    var _discounts: [SKProductDiscount] = []
    open var discounts: [SKProductDiscount] { _discounts }

    public override init() { super.init() }

    init(_ product: IAPSimKit.Product, catalog: Catalog, locale: String) {
        super.init()
        let localization = product.localization(for: locale, fallback: catalog.store.localeIdentifier)
        _productIdentifier = product.id
        _localizedTitle = localization?.displayName ?? product.referenceName
        _localizedDescription = localization?.description ?? ""
        _price = NSDecimalNumber(decimal: product.price)
        let priceLocale = Locale(identifier: locale + "@currency=" + catalog.storefront.currencyCode)
        self._priceLocale = priceLocale
        _isFamilyShareable = product.familyShareable
        if let subscription = product.subscription {
            _subscriptionPeriod = SKProductSubscriptionPeriod(subscription.period)
            _subscriptionGroupIdentifier = subscription.groupID
            _introductoryPrice = subscription.introductoryOffer.map {
                SKProductDiscount($0, type: .introductory, locale: priceLocale)
            }
            _discounts = subscription.promotionalOffers.map {
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
    var _numberOfUnits: Int = 0
    open var numberOfUnits: Int { _numberOfUnits }
    var _unit: SKProduct.PeriodUnit = .day
    open var unit: SKProduct.PeriodUnit { _unit }

    init(_ period: IAPSimKit.SubscriptionPeriod) {
        super.init()
        _numberOfUnits = period.value
        switch period.unit {
        case .day: _unit = .day
        case .week: _unit = .week
        case .month: _unit = .month
        case .year: _unit = .year
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

    var _price: NSDecimalNumber = .zero
    open var price: NSDecimalNumber { _price }
    var _priceLocale: Locale = Locale(identifier: "en_US")
    open var priceLocale: Locale { _priceLocale }
    var _identifier: String?
    open var identifier: String? { _identifier }
    var _subscriptionPeriod: SKProductSubscriptionPeriod
    open var subscriptionPeriod: SKProductSubscriptionPeriod { _subscriptionPeriod }
    var _numberOfPeriods: Int = 0
    open var numberOfPeriods: Int { _numberOfPeriods }
    var _paymentMode: SKProductDiscount.PaymentMode = .payAsYouGo
    open var paymentMode: SKProductDiscount.PaymentMode { _paymentMode }
    var _type: SKProductDiscount.`Type` = .introductory
    open var type: SKProductDiscount.`Type` { _type }

    init(_ offer: SubscriptionOffer, type: SKProductDiscount.`Type`, locale: Locale) {
        _subscriptionPeriod = SKProductSubscriptionPeriod(offer.period)
        super.init()
        _price = NSDecimalNumber(decimal: offer.price)
        _priceLocale = locale
        _identifier = offer.id
        _numberOfPeriods = offer.periodCount
        switch offer.paymentMode {
        case .payAsYouGo: _paymentMode = .payAsYouGo
        case .payUpFront: _paymentMode = .payUpFront
        case .freeTrial: _paymentMode = .freeTrial
        }
        self._type = type
    }
}

/// `SKStorefront`: the account's App Store country.
open class SKStorefront: NSObject, @unchecked Sendable {
    var _countryCode: String
    open var countryCode: String { _countryCode }
    var _identifier: String
    open var identifier: String { _identifier }

    init(countryCode: String) {
        self._countryCode = countryCode
        _identifier = IAPSimKit.Storefront.named(countryCode)?.appleID ?? ""
        super.init()
    }
}
