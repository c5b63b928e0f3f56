import IAPSimKit

extension Runner {
    /// `list-products`: what `SKProductsRequest` returns, in the plist's order.
    func listProducts() throws -> ExitCode {
        _ = try requestedLocale()
        let (catalog, session) = try catalogAndSession()
        let (state, moment) = try session.snapshot()
        let status = AccountStatus(state: state, at: moment.now)
        let settings = moment.settings
        if let error = settings.simulatedError(.loadProductsError) {
            throw SimulationError.simulated(api: "Loading products", error: error)
        }
        let presenter = try presenter(catalog, settings: settings)
        defer { noteUnfinished(status.unfinishedTransactionIDs) }
        if !catalog.invalidProductIdentifiers.isEmpty {
            let origin = catalog.source.productIDsPath ?? catalog.source.storeKitPath
            console.notice(
                "Warning: \(origin): the store has no product for "
                    + catalog.invalidProductIdentifiers.map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
                    + " (invalidProductIdentifiers)")
        }
        if !catalog.notAvailableInStorefront.isEmpty {
            console.notice(
                "Warning: not sold in the \(catalog.storefront.countryCode) storefront: "
                    + catalog.notAvailableInStorefront.map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
                    + " (notAvailableInStorefront; give them prices in \(StorefrontPrices.path(forStoreKit: catalog.source.storeKitPath)))"
            )
        }
        if options.json {
            // Streamed product by product: a 10,000-product catalog never holds its whole
            // output tree in memory.
            var output: [UInt8] = Array("{\n  \"products\": [".utf8)
            output.reserveCapacity(catalog.products.count * 512)
            for (offset, product) in catalog.products.enumerated() {
                output.append(contentsOf: (offset == 0 ? "\n    " : ",\n    ").utf8)
                productJSON(product, presenter: presenter, status: status).write(to: &output, indent: 2)
            }
            output.append(contentsOf: (catalog.products.isEmpty ? "],\n" : "\n  ],\n").utf8)
            let rest = JSON.object([
                ("invalidProductIdentifiers", .array(catalog.invalidProductIdentifiers.map(JSON.string))),
                ("notAvailableInStorefront", .array(catalog.notAvailableInStorefront.map(JSON.string))),
                ("storefront", .string(catalog.storefront.countryCode)),
                ("currencyCode", .string(catalog.storefront.currencyCode)),
                ("locale", .string(presenter.localeIdentifier)),
            ]).bytes()
            output.append(contentsOf: rest.dropFirst(2))  // its members, after the opening "{\n"
            console.out(bytes: output)
            return .success
        }
        guard !catalog.products.isEmpty else {
            console.out("No products.")
            return .success
        }
        var rows = [["PRODUCT", "TYPE", "TITLE", "PRICE", "OWNED"]]
        var details: [Int: String] = [:]
        for product in catalog.products {
            rows.append([
                TerminalText.escaped(product.id),
                ProductPresenter.shortTypeName(product.type),
                TerminalText.escaped(presenter.title(product)),
                presenter.displayPrice(product.price),
                ownership(product, status: status),
            ])
            if let summary = presenter.subscriptionSummary(product) {
                details[rows.count - 1] = TerminalText.escaped(summary)
            }
        }
        for (row, line) in TerminalText.table(rows, width: width, shrinking: [2, 0]).enumerated() {
            console.out(row == 0 ? console.styled(line, .bold) : line)
            if let detail = details[row] { console.out(console.styled("    " + detail, .dim)) }
        }
        return .success
    }

    /// A consumable's balance; for a subscription whether it is active now; otherwise whether
    /// the app's record has it.
    private func ownership(_ product: Product, status: AccountStatus) -> String {
        switch product.type {
        case .consumable:
            let balance = status.consumables[product.id] ?? 0
            return balance > 0 ? "×\(balance)" : "-"
        case .autoRenewable:
            return status.isEntitled(to: product.id) ? "active" : "-"
        case .nonConsumable, .nonRenewable:
            return owns(product, status: status) ? "yes" : "-"
        }
    }

    private func owns(_ product: Product, status: AccountStatus) -> Bool {
        switch product.type {
        case .consumable: (status.consumables[product.id] ?? 0) > 0
        case .autoRenewable: status.isEntitled(to: product.id)
        case .nonConsumable, .nonRenewable: status.purchasedProductIdentifiers.contains(product.id)
        }
    }

    private func productJSON(_ product: Product, presenter: ProductPresenter, status: AccountStatus) -> JSON {
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
            ("owned", .bool(owns(product, status: status))),
        ]
        if product.type == .consumable {
            members.append(("balance", .int(status.consumables[product.id] ?? 0)))
        }
        if let subscription = product.subscription {
            members.append(("subscription", .subscriptionInfo(subscription, presenter: presenter)))
        }
        return .object(members)
    }
}

extension JSON {
    /// `Product.SubscriptionInfo`, with offers as `Product.SubscriptionOffer`.
    static func subscriptionInfo(_ subscription: SubscriptionInfo, presenter: ProductPresenter) -> JSON {
        func offer(_ offer: SubscriptionOffer, type: String) -> JSON {
            .object([
                ("id", .optional(offer.id)),
                ("type", .string(type)),
                ("paymentMode", .string(offer.paymentMode.rawValue)),
                ("period", .period(offer.period)),
                ("periodCount", .int(offer.periodCount)),
                ("price", .string(offer.price.plainString)),
                ("displayPrice", .string(presenter.displayPrice(offer.price))),
                ("summary", .string(presenter.offerSummary(offer))),
            ])
        }
        return .object([
            ("subscriptionGroupID", .string(subscription.groupID)),
            ("groupName", .string(subscription.groupName)),
            ("groupLevel", .int(subscription.groupLevel)),
            ("subscriptionPeriod", .period(subscription.period)),
            ("periodDescription", .string(subscription.period.localizedDescription)),
            ("introductoryOffer", subscription.introductoryOffer.map { offer($0, type: "introductory") } ?? .null),
            ("promotionalOffers", .array(subscription.promotionalOffers.map { offer($0, type: "promotional") })),
            ("offerCodes", .array(subscription.offerCodes.map { offer($0, type: "code") })),
            ("winBackOffers", .array(subscription.winBackOffers.map { offer($0, type: "winBack") })),
        ])
    }
}
