import Foundation

/// The store's side of a catalog: every product a `.storekit` file defines, checked and
/// typed, with the storefront and price locale its `settings` name.
public struct StoreConfiguration: Sendable {
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
    public var settings: StoreSettings

    /// Reads and checks a `.storekit` file.
    /// - Throws: `CatalogError` naming the file and the product or key at fault.
    public static func load(path: String) throws -> StoreConfiguration {
        // Each stage is let go as soon as the next is built: a 10,000-product file is a few
        // megabytes in each form.
        let file = try Self.read(path)
        return try StoreConfiguration(file: file, path: path)
    }

    private static func read(_ path: String) throws -> StoreKitConfigurationFile {
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
    static func document(_ data: Data, path: String) throws -> JSONValue {
        if PropertyList.looksLikePropertyList(data) {
            do {
                return try PropertyList.parse(data)
            } catch {
                throw CatalogError.malformed(path: path, detail: error.message)
            }
        }
        do {
            return try JSONValue.parse([UInt8](data))
        } catch {
            throw CatalogError.malformed(path: path, detail: "malformed JSON at byte \(error.offset): \(error.message)")
        }
    }

    init(file: StoreKitConfigurationFile, path: String) throws {
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
        self.settings = StoreSettings(
            file: settings, locale: settings?.locale != nil ? localeIdentifier : nil,
            storefront: settings?.storefront != nil ? storefront : nil)

        var products: [Product] = []
        for entry in (file.products ?? []) + (file.nonRenewingSubscriptions ?? []) {
            products.append(try Self.product(from: entry, group: nil, path: path, storefront: storefront))
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
    ) throws -> Product {
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
            guard let period = SubscriptionPeriod(iso8601: periodText) else {
                throw CatalogError.invalidPeriod(path: path, productID: entry.productID, value: periodText)
            }
            subscription = SubscriptionInfo(
                groupID: entry.subscriptionGroupID ?? group?.id ?? "",
                groupName: group?.name ?? "",
                groupLevel: entry.groupNumber ?? 1,
                period: period,
                introductoryOffer: try entry.introductoryOffer.map {
                    try Self.offer($0, productID: entry.productID, path: path)
                },
                promotionalOffers: try (entry.adHocOffers ?? []).map {
                    try Self.offer($0, productID: entry.productID, path: path)
                },
                offerCodes: try (entry.codeOffers ?? []).map {
                    try Self.offer($0, productID: entry.productID, path: path)
                },
                winBackOffers: try (entry.winbackOffers ?? []).map {
                    try Self.offer($0, productID: entry.productID, path: path)
                })
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
    ) throws -> SubscriptionOffer {
        guard let period = SubscriptionPeriod(iso8601: offer.subscriptionPeriod) else {
            throw CatalogError.invalidPeriod(path: path, productID: productID, value: offer.subscriptionPeriod)
        }
        guard let mode = SubscriptionOffer.PaymentMode(rawValue: offer.paymentMode) else {
            throw CatalogError.malformed(
                path: path, detail: "\(productID): unknown introductory offer paymentMode \"\(offer.paymentMode)\"")
        }
        let price = try offer.displayPrice.map { try Self.price($0, productID: productID, path: path) } ?? 0
        return SubscriptionOffer(
            id: offer.offerID, paymentMode: mode, period: period, periodCount: offer.numberOfPeriods ?? 1,
            price: mode == .freeTrial ? 0 : price)
    }

    private static func price(_ text: String, productID: String, path: String) throws -> Decimal {
        // Xcode saves a product whose price was never filled in with `"displayPrice" : ""`
        // (seen in a real file); it sells for nothing until one is set.
        if text.isEmpty { return 0 }
        guard let price = Decimal(plainDecimal: text) else {
            throw CatalogError.invalidPrice(path: path, productID: productID, value: text)
        }
        return price
    }
}

/// The `SKTestSession` defaults a `.storekit` file's `settings` block holds, as iapsim setting
/// values; keys the file does not set are absent.
public struct StoreSettings: Sendable, Equatable {
    public var values: [SettingKey: String]

    public init(values: [SettingKey: String] = [:]) {
        self.values = values
    }

    public func value(for key: SettingKey) -> String? { values[key] }

    init(file: StoreKitConfigurationFile.Settings?, locale: String?, storefront: Storefront?) {
        var values: [SettingKey: String] = [:]
        func flag(_ key: SettingKey, _ value: Bool?) {
            if let value { values[key] = value ? "true" : "false" }
        }
        flag(.askToBuy, file?.askToBuyEnabled)
        flag(.billingRetry, file?.renewalBillingIssuesEnabled)
        flag(.gracePeriod, file?.billingGracePeriodEnabled)
        if let raw = file?.timeRate, let rate = TimeRate(rawValue: raw) { values[.timeRate] = rate.name }
        if file?.failTransactionsEnabled == true { values[.purchaseError] = "SKError.unknown" }
        // Xcode 15's per-API errors: `{name: "Purchase", enabled: true, current: …}`.
        let apis: [String: SettingKey] = [
            "Purchase": .purchaseError, "Load Products": .loadProductsError, "App Store Sync": .appStoreSyncError,
        ]
        for entry in file?.storeKitErrors ?? [] {
            guard let name = entry.name, let key = apis[name], let enabled = entry.enabled else { continue }
            values[key] =
                enabled
                ? (entry.current.flatMap(SimulatedError.named)?.qualifiedName ?? "StoreKitError.unknown") : "none"
        }
        if let locale { values[.locale] = locale }
        if let storefront { values[.storefront] = storefront.countryCode }
        self.values = values
    }
}
