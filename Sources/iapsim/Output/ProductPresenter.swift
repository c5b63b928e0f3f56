import Foundation
import IAPSimKit

/// How a catalog's products read in one locale: titles from the best localization, prices as
/// `Product.displayPrice` would show them in the storefront's currency.
struct ProductPresenter {
    let catalog: Catalog
    let localeIdentifier: String
    let formatter: PriceFormatter

    /// Texts of prices earlier commands formatted (`prices.cache`); nil to format each.
    let texts: PriceTexts?

    /// - Parameters:
    ///   - locale: the requested locale, or nil for the catalog's own (`_locale`).
    ///   - texts: the state folder's remembered price texts, if any.
    init(catalog: Catalog, locale: String?, texts: PriceTexts? = nil) {
        self.catalog = catalog
        self.texts = texts
        self.localeIdentifier = locale ?? catalog.localeIdentifier
        self.formatter = PriceFormatter(
            currencyCode: catalog.storefront.currencyCode, localeIdentifier: localeIdentifier)
    }

    func localization(_ product: Product) -> ProductLocalization? {
        product.localization(for: localeIdentifier, fallback: catalog.store.localeIdentifier)
    }

    /// "Pro · level 2 · every month · 1 week free, then …": a subscription's terms in a line.
    /// The introductory offer is shown only while the account is eligible for it.
    func subscriptionSummary(_ product: Product, status: AccountStatus) -> String? {
        guard let subscription = product.subscription else { return nil }
        var parts = [
            subscription.groupName.isEmpty ? "group \(subscription.groupID)" : subscription.groupName,
            "level \(subscription.groupLevel)",
            subscription.period.value == 1
                ? "every " + subscription.period.localizedDescription.dropFirst(2)
                : "every \(subscription.period.localizedDescription)",
        ]
        if let offer = subscription.introductoryOffer {
            parts.append(
                status.isEligibleForIntroOffer(group: subscription.groupID)
                    ? "intro: " + offerSummary(offer) : "intro offer used")
        }
        if !subscription.promotionalOffers.isEmpty {
            parts.append("\(subscription.promotionalOffers.count) promotional")
        }
        if !subscription.offerCodes.isEmpty {
            parts.append("\(subscription.offerCodes.count) offer code\(subscription.offerCodes.count == 1 ? "" : "s")")
        }
        if !subscription.winBackOffers.isEmpty { parts.append("\(subscription.winBackOffers.count) win-back") }
        if let plan = subscription.monthlyPlan {
            parts.append("or \(displayPrice(plan.price)) a month for \(subscription.period.localizedDescription)")
        }
        if product.familyShareable { parts.append("family shareable") }
        return parts.joined(separator: " · ")
    }

    /// "free for 1 week", "$0.99 a month for 3 months", "$1.99 up front for 3 months".
    func offerSummary(_ offer: SubscriptionOffer) -> String {
        let length = offer.period.times(offer.periodCount)
        switch offer.paymentMode {
        case .freeTrial:
            return "free for \(length.localizedDescription)"
        case .payAsYouGo:
            let each =
                offer.period.value == 1
                ? offer.period.localizedDescription.replacingOccurrences(of: "1 ", with: "a ")
                : "every \(offer.period.localizedDescription)"
            return "\(displayPrice(offer.price)) \(each) for \(length.localizedDescription)"
        case .payUpFront:
            return "\(displayPrice(offer.price)) up front for \(length.localizedDescription)"
        }
    }

    /// "$2.99 a month", "$9.99 every 3 months": what a subscription renews at; nil for others.
    func recurringPrice(_ product: Product) -> String? {
        guard let period = product.subscription?.period else { return nil }
        let each =
            period.value == 1
            ? period.localizedDescription.replacingOccurrences(of: "1 ", with: "a ")
            : "every \(period.localizedDescription)"
        return "\(displayPrice(product.price)) \(each)"
    }

    /// "week", "month", "3 days": the whole length of a free trial, as in "the free week".
    func trialLength(_ offer: SubscriptionOffer) -> String {
        let length = offer.period.times(offer.periodCount)
        return length.value == 1 ? String(length.localizedDescription.dropFirst(2)) : length.localizedDescription
    }

    /// The localized display name, or the reference name when the catalog has none.
    func title(_ product: Product) -> String {
        let name = localization(product)?.displayName ?? ""
        return name.isEmpty ? product.referenceName : name
    }

    /// Formatted once per distinct price: a 10,000-product catalog has a few dozen. Once
    /// formatted in a state folder, a price is not formatted again (`PriceTexts`). Keyed by
    /// the price's text: a dictionary keyed by `Decimal` costs its first use a scan of the
    /// program's protocol conformances (about 340,000 instructions, a twentieth of a `buy`).
    func displayPrice(_ price: Decimal) -> String {
        let key = price.plainString
        if let known = memo.displayPrices[key] { return known }
        let text = texts?.text(for: price, by: formatter) ?? formatter.string(for: price)
        memo.displayPrices[key] = text
        return text
    }

    /// The texts of the prices formatted so far: the presenter is a value, its memo shared.
    private final class Memo {
        var displayPrices: [String: String] = [:]
    }
    private let memo = Memo()

    /// `consumable`, `non-consumable`, `auto-renewable`, `non-renewing`: short enough for a column.
    static func shortTypeName(_ type: ProductType) -> String {
        switch type {
        case .consumable: "consumable"
        case .nonConsumable: "non-consumable"
        case .autoRenewable: "auto-renewable"
        case .nonRenewable: "non-renewing"
        }
    }
}
