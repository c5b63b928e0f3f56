import Foundation
import IAPSimKit

struct ListProducts: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "list-products", aliases: ["list"], abstract: "List the app's products with localized prices.",
        synopsis: "",
        discussion: """
            What an app's SKProductsRequest returns: each identifier in IAPProductIDs.plist that
            the store has, in the plist's order, with its type, title, price in the storefront's
            currency formatted for the locale, and whether the app owns it. Identifiers the
            store lacks are reported on stderr as invalidProductIdentifiers; the rest still list.
            """,
        arguments: [],
        options: [],
        examples: ["iapsim list", "iapsim list --locale de_DE", "iapsim list --json | jq '.products[].id'"])

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
    }

    func run(in context: CommandContext) throws -> Report {
        let (catalog, session) = try context.catalogAndSession()
        let response = try session.requestProducts(in: catalog)
        let presenter = try context.presenter(catalog, settings: response.settings)
        let status = response.status
        var report = Report(
            json: .stream { stream in
                // Product by product: a 10,000-product catalog never holds its output in memory.
                stream.beginObject()
                stream.beginArray("products")
                for product in response.products {
                    stream.value(Self.productJSON(product, presenter: presenter, status: status))
                }
                stream.end()
                stream.value(.array(response.invalidProductIdentifiers.map(JSON.string)), "invalidProductIdentifiers")
                stream.value(.array(response.notAvailableInStorefront.map(JSON.string)), "notAvailableInStorefront")
                stream.value(.string(catalog.storefront.countryCode), "storefront")
                stream.value(.string(catalog.storefront.currencyCode), "currencyCode")
                stream.value(.string(presenter.localeIdentifier), "locale")
            },
            text: {
                guard !response.products.isEmpty else { return [.line("No products.")] }
                var rows = [["PRODUCT", "TYPE", "TITLE", "PRICE", "OWNED"]]
                var details: [Int: String] = [:]
                for product in response.products {
                    rows.append([
                        product.id, ProductPresenter.shortTypeName(product.type), presenter.title(product),
                        presenter.displayPrice(product.price), Self.ownershipText(status.ownership(of: product)),
                    ])
                    if let summary = presenter.subscriptionSummary(product, status: status) {
                        details[rows.count - 1] = summary
                    }
                }
                return [.table(rows: rows, header: true, shrinking: [2, 0], details: details)]
            })
        if !response.invalidProductIdentifiers.isEmpty {
            let origin = catalog.source.productIDsPath ?? catalog.source.storeKitPath
            report.warnings.append(
                "Warning: \(origin): the store has no product for "
                    + Self.quotedList(response.invalidProductIdentifiers, summarized: context.console.errorIsTerminal)
                    + " (invalidProductIdentifiers)")
        }
        if !response.notAvailableInStorefront.isEmpty {
            report.warnings.append(
                "Warning: not sold in the \(catalog.storefront.countryCode) storefront: "
                    + Self.quotedList(response.notAvailableInStorefront, summarized: context.console.errorIsTerminal)
                    + " (notAvailableInStorefront; give them prices in \(StorefrontPrices.path(forStoreKit: catalog.source.storeKitPath)))"
            )
        }
        report.notes = CommandContext.unfinishedNote(status.unfinishedTransactionIDs)
        return report
    }
}

extension ListProducts {
    /// `'a', 'b', 'c'`; on a terminal the first 20, then "and N more".
    static func quotedList(_ identifiers: [String], summarized: Bool) -> String {
        let limit = 20
        let shown = summarized ? Array(identifiers.prefix(limit)) : identifiers
        let list = shown.map { "'\($0)'" }.joined(separator: ", ")
        return identifiers.count > shown.count ? list + " and \(identifiers.count - shown.count) more" : list
    }

    /// `×3`, `active`, `yes` or `-`.
    static func ownershipText(_ ownership: AccountStatus.Ownership) -> String {
        switch ownership {
        case .balance(let count): count > 0 ? "×\(count)" : "-"
        case .subscribed: "active"
        case .owned: "yes"
        case .notOwned: "-"
        }
    }

    static func productJSON(_ product: Product, presenter: ProductPresenter, status: AccountStatus) -> JSON {
        let localization = presenter.localization(product)
        let ownership = status.ownership(of: product)
        var members: [(String, JSON)] = [
            ("id", .string(product.id)),
            ("type", .string(product.type.rawValue)),
            ("displayName", .string(presenter.title(product))),
            ("description", .string(localization?.description ?? "")),
            ("price", .string(product.price.plainString)),
            ("currencyCode", .string(presenter.formatter.currencyCode)),
            ("displayPrice", .string(presenter.displayPrice(product.price))),
            ("familyShareable", .bool(product.familyShareable)),
            ("owned", .bool(ownership.isOwned)),
        ]
        if case .balance(let count) = ownership { members.append(("balance", .int(count))) }
        if let subscription = product.subscription {
            members.append(
                ("subscription", .subscriptionInfo(subscription, presenter: presenter, status: status)))
        }
        return .object(members)
    }
}

extension JSON {
    /// `Product.SubscriptionInfo`, with offers as `Product.SubscriptionOffer`, and whether the
    /// account may still use the group's introductory offer (`isEligibleForIntroOffer`).
    static func subscriptionInfo(_ subscription: SubscriptionInfo, presenter: ProductPresenter, status: AccountStatus)
        -> JSON
    {
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
            ("isEligibleForIntroOffer", .bool(status.isEligibleForIntroOffer(group: subscription.groupID))),
            ("promotionalOffers", .array(subscription.promotionalOffers.map { offer($0, type: "promotional") })),
            ("offerCodes", .array(subscription.offerCodes.map { offer($0, type: "code") })),
            ("winBackOffers", .array(subscription.winBackOffers.map { offer($0, type: "winBack") })),
            (
                "billingPlans",
                .array(
                    subscription.billingPlans.map { plan in
                        .object([
                            ("type", .string(plan.type)), ("price", .string(plan.price.plainString)),
                            ("displayPrice", .string(presenter.displayPrice(plan.price))),
                            ("commitmentPrice", .string(plan.commitmentPrice.plainString)),
                            ("isEnabled", .bool(plan.isEnabled)),
                        ])
                    })
            ),
        ])
    }
}
