import IAPSimKit

extension Runner {
    /// `list-products`: what `SKProductsRequest` returns, in the plist's order.
    func listProducts() throws -> ExitCode {
        let locale = try requestedLocale()
        let catalog = try loadCatalog()
        let owned = try session().store.read().app
        let presenter = ProductPresenter(catalog: catalog, locale: locale)
        if !catalog.invalidProductIdentifiers.isEmpty {
            let origin = catalog.source.productIDsPath ?? catalog.source.storeKitPath
            console.error(
                "Warning: \(origin): the store has no product for "
                    + catalog.invalidProductIdentifiers.map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
                    + " (invalidProductIdentifiers)")
        }
        if options.json {
            emit(.object([
                ("products", .array(catalog.products.map { productJSON($0, presenter: presenter, owned: owned) })),
                ("invalidProductIdentifiers", .array(catalog.invalidProductIdentifiers.map(JSON.string))),
                ("storefront", .string(catalog.store.storefront.countryCode)),
                ("locale", .string(presenter.localeIdentifier)),
            ]))
            return .success
        }
        guard !catalog.products.isEmpty else {
            console.out("No products.")
            return .success
        }
        var rows = [["PRODUCT", "TYPE", "TITLE", "PRICE", "OWNED"]]
        for product in catalog.products {
            rows.append([
                TerminalText.escaped(product.id),
                ProductPresenter.shortTypeName(product.type),
                TerminalText.escaped(presenter.title(product)),
                presenter.displayPrice(product.price),
                ownership(product, owned: owned),
            ])
        }
        TerminalText.table(rows).forEach(console.out)
        return .success
    }

    private func ownership(_ product: Product, owned: PurchaseState.AppRecord) -> String {
        if product.type == .consumable {
            let balance = owned.consumables[product.id] ?? 0
            return balance > 0 ? "×\(balance)" : "-"
        }
        return owned.owns(product.id) ? "yes" : "-"
    }

    private func productJSON(_ product: Product, presenter: ProductPresenter, owned: PurchaseState.AppRecord) -> JSON {
        let localization = presenter.localization(product)
        var members: [(String, JSON)] = [
            ("id", .string(product.id)),
            ("type", .string(product.type.rawValue)),
            ("displayName", .string(presenter.title(product))),
            ("description", .string(localization?.description ?? "")),
            ("price", .string(product.price.plainString)),
            ("currencyCode", .string(presenter.formatter.currencyCode)),
            ("displayPrice", .string(presenter.displayPrice(product.price))),
            ("familyShareable", .bool(product.familyShareable)),
            ("owned", .bool(product.type == .consumable ? (owned.consumables[product.id] ?? 0) > 0 : owned.owns(product.id))),
        ]
        if product.type == .consumable {
            members.append(("balance", .int(owned.consumables[product.id] ?? 0)))
        }
        if let subscription = product.subscription {
            var info: [(String, JSON)] = [
                ("subscriptionGroupID", .string(subscription.groupID)),
                ("groupName", .string(subscription.groupName)),
                ("groupLevel", .int(subscription.groupLevel)),
                ("subscriptionPeriod", .period(subscription.period)),
            ]
            if let offer = subscription.introductoryOffer {
                info.append(("introductoryOffer", .object([
                    ("paymentMode", .string(offer.paymentMode.rawValue)),
                    ("period", .period(offer.period)),
                    ("periodCount", .int(offer.periodCount)),
                    ("price", .string(offer.price.plainString)),
                    ("displayPrice", .string(presenter.displayPrice(offer.price))),
                ])))
            } else {
                info.append(("introductoryOffer", .null))
            }
            members.append(("subscription", .object(info)))
        }
        return .object(members)
    }
}
