import Foundation
import IAPSimJSON

/// The store's side of a catalog: every product a `.storekit` file defines, checked and
/// typed, with the storefront and price locale its `settings` name.
public struct StoreKitConfiguration: Sendable {
    /// The file it was read from, as given.
    public var path: String
    /// Products in the order the file lists them: `products`, `nonRenewingSubscriptions`, then
    /// each subscription group's subscriptions.
    public var products: [Product]
    /// `_storefront`, or the United States when the file names none (as Xcode defaults).
    public var storefront: Storefront
    /// `_locale`, or the storefront's own locale.
    public var localeIdentifier: String
    /// The `SKTestSession` defaults stored with the file.
    public var settings: CatalogSettings
    /// `subscriptionOffersKeyPair`: the key promotional offers are signed with in local
    /// testing; read when an offer is signed or checked (a file whose key is unusable still loads).
    public var offerSigningKey: OfferSigningKey?

    /// Reads and checks a `.storekit` file.
    /// - Throws: `CatalogError` naming the file and the product or key at fault.
    public static func load(path: String) throws(CatalogError) -> StoreKitConfiguration {
        // Each stage is let go as soon as the next is built: a 10,000-product file is a few
        // megabytes in each form.
        let file = try Self.read(path)
        return try StoreKitConfiguration(file: file, path: path)
    }

    private static func read(_ path: String) throws(CatalogError) -> StoreKitConfigurationFile {
        let json = try document(try CatalogFile.read(path), path: path)
        do {
            return try StoreKitConfigurationFile(json)
        } catch {
            throw CatalogError.malformed(path: path, detail: error.message)
        }
    }

    /// A `.storekit` file's document: JSON as Xcode writes it, or the same tree saved as an XML
    /// or binary property list, which reads the same.
    /// - Throws: `CatalogError.malformed` naming the file and where it stopped making sense.
    static func document(_ data: Data, path: String) throws(CatalogError) -> JSONValue {
        if PropertyList.looksLikePropertyList(data) {
            do {
                return try PropertyList.parse(data)
            } catch {
                throw CatalogError.malformed(path: path, detail: error.message)
            }
        }
        // A byte order mark, which an editor may add when it saves the file, is skipped, as
        // Foundation's `JSONSerialization` (and so Xcode) skips it (RFC 8259 §8.1 allows it).
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let skipped = data.starts(with: bom) ? bom.count : 0
        do {
            return try JSONValue.parse([UInt8](data.dropFirst(skipped)))
        } catch {
            throw CatalogError.malformed(
                path: path, detail: "malformed JSON at byte \(error.offset + skipped): \(error.message)")
        }
    }

    init(file: StoreKitConfigurationFile, path: String) throws(CatalogError) {
        self.path = path
        let settings = file.settings
        if let code = settings?.storefront {
            guard let storefront = Storefront.named(code) else {
                throw CatalogError.unknownStorefront(path: path, value: code)
            }
            self.storefront = storefront
        } else {
            self.storefront = .unitedStates
        }
        if let locale = settings?.locale {
            guard let canonical = LocaleName.canonical(locale) else {
                throw CatalogError.unknownLocale(path: path, value: locale)
            }
            self.localeIdentifier = canonical
        } else {
            self.localeIdentifier = storefront.localeIdentifier
        }
        self.settings = CatalogSettings(
            file: settings, locale: settings?.locale != nil ? localeIdentifier : nil,
            storefront: settings?.storefront != nil ? storefront : nil)
        self.offerSigningKey = file.subscriptionOffersKeyPair.map {
            OfferSigningKey(id: $0.id, privateKey: $0.privateKey)
        }

        var products: [Product] = []
        products.reserveCapacity((file.products?.count ?? 0) + (file.nonRenewingSubscriptions?.count ?? 0))
        // Each list in turn, not the two joined: joining copies every entry of a long file.
        for entries in [file.products, file.nonRenewingSubscriptions] {
            for entry in entries ?? [] {
                products.append(try Self.product(from: entry, group: nil, path: path, storefront: storefront))
            }
        }
        for group in file.subscriptionGroups ?? [] {
            for entry in group.subscriptions ?? [] {
                products.append(try Self.product(from: entry, group: group, path: path, storefront: storefront))
            }
        }
        self.products = products
    }

    private static func product(
        from entry: StoreKitConfigurationFile.ProductEntry,
        group: StoreKitConfigurationFile.SubscriptionGroup?,
        path: String, storefront: Storefront
    ) throws(CatalogError) -> Product {
        guard let type = ProductType(storeKitConfigurationName: entry.type) else {
            throw CatalogError.unknownProductType(path: path, productID: entry.productID, value: entry.type)
        }
        let price = try Self.price(entry.displayPrice, productID: entry.productID, path: path)
        if !Currency.isValid(price, in: storefront.currencyCode) {
            throw CatalogError.fractionalPrice(
                path: path, productID: entry.productID, value: entry.displayPrice, currencyCode: storefront.currencyCode
            )
        }
        var subscription: SubscriptionInfo?
        if type == .autoRenewable {
            let periodText = entry.recurringSubscriptionPeriod ?? ""
            guard let period = SubscriptionPeriod(iso8601: periodText), period.isAtMostAYear else {
                throw CatalogError.invalidPeriod(path: path, productID: entry.productID, value: periodText)
            }
            func offer(_ item: StoreKitConfigurationFile.Offer) throws(CatalogError) -> SubscriptionOffer {
                try Self.offer(item, productID: entry.productID, path: path)
            }
            subscription = SubscriptionInfo(
                groupID: entry.subscriptionGroupID ?? group?.id ?? "",
                groupName: group?.name ?? "",
                groupLevel: entry.groupNumber ?? 1,
                period: period,
                // Format 5 lists introductory offers per billing plan: the one paid up front.
                introductoryOffer: try
                    (entry.introductoryOffer
                    ?? entry.introductoryOffers?.first {
                        ($0.billingPlanType ?? BillingPlanType.billedUpfront.rawValue)
                            == BillingPlanType.billedUpfront.rawValue
                    }
                    ?? entry.introductoryOffers?.first).map(offer),
                promotionalOffers: try (entry.adHocOffers ?? []).map(offer),
                // An offer code is known by its reference name when the file gives it no
                // identifier: what its transactions' offerIdentifier carries.
                offerCodes: try (entry.codeOffers ?? []).map { code throws(CatalogError) in
                    var named = try offer(code)
                    named.id = code.offerID ?? code.referenceName
                    return named
                },
                winBackOffers: try (entry.winbackOffers ?? []).map(offer))
            subscription?.billingPlans = try (entry.billingPlans ?? []).map { plan throws(CatalogError) in
                BillingPlan(
                    type: plan.billingPlanType,
                    price: try Self.price(plan.displayPrice, productID: entry.productID, path: path),
                    commitmentPrice: try Self.price(
                        plan.commitmentDisplayPrice ?? plan.displayPrice, productID: entry.productID, path: path),
                    isEnabled: plan.isEnabled ?? true)
            }
        }
        return Product(
            id: entry.productID,
            type: type,
            referenceName: entry.referenceName ?? entry.productID,
            price: price,
            familyShareable: entry.familyShareable ?? false,
            localizations: (entry.localizations ?? []).map {
                ProductLocalization(
                    locale: $0.locale, displayName: $0.displayName ?? "", description: $0.description ?? "")
            },
            subscription: subscription)
    }

    private static func offer(
        _ offer: StoreKitConfigurationFile.Offer, productID: String, path: String
    ) throws(CatalogError) -> SubscriptionOffer {
        guard let period = SubscriptionPeriod(iso8601: offer.subscriptionPeriod), period.isAtMostAYear else {
            throw CatalogError.invalidPeriod(path: path, productID: productID, value: offer.subscriptionPeriod)
        }
        guard let mode = SubscriptionOffer.PaymentMode(rawValue: offer.paymentMode) else {
            throw CatalogError.malformed(
                path: path, detail: "\(productID): unknown introductory offer paymentMode \"\(offer.paymentMode)\"")
        }
        var price: Decimal = 0
        if let text = offer.displayPrice { price = try Self.price(text, productID: productID, path: path) }
        if let count = offer.numberOfPeriods, !(1...1_000).contains(count) {
            throw CatalogError.malformed(
                path: path, detail: "\(productID): an offer's numberOfPeriods \(count) is not from 1 to 1000")
        }
        var result = SubscriptionOffer(
            id: offer.offerID, paymentMode: mode, period: period,
            periodCount: offer.numberOfPeriods ?? 1, price: mode == .freeTrial ? 0 : price)
        result.eligibility = Set(
            (offer.eligibility ?? []).compactMap(SubscriptionOffer.CodeEligibility.init(rawValue:)))
        result.isStackable = offer.isStackable ?? false
        result.isEligible = offer.isEligible ?? true
        return result
    }

    private static func price(_ text: String, productID: String, path: String) throws(CatalogError) -> Decimal {
        // Xcode saves a product whose price was never filled in with `"displayPrice" : ""`
        // (seen in a real file); it sells for nothing until one is set.
        if text.isEmpty { return 0 }
        guard let price = Decimal(plainDecimal: text) else {
            throw CatalogError.invalidPrice(path: path, productID: productID, value: text)
        }
        guard price <= Currency.maximumPrice else {
            throw CatalogError.priceTooHigh(path: path, productID: productID, value: text)
        }
        return price
    }
}
