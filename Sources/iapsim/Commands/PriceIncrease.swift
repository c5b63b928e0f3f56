import Foundation
import IAPSimJSON
import IAPSimKit

struct PriceIncrease: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "price-increase", abstract: "Raise a subscription's renewal price; the subscriber consents or declines.",
        synopsis: "<product-id> <new-price> [--consent-required | --notify-only]\nconsent|decline <product-id>",
        discussion: """
            A price increase for the active subscription that renews to the product, as App Store
            Connect makes one and Xcode tests it (SKTestSession's
            requestPriceIncreaseConsentForProduct(identifier:)). The new price is in the
            subscription's currency and must be above its renewal price (and at most
            1000000000000, which signed data's 64-bit milliunits can carry). With
            --consent-required (the default) the subscriber must agree: PRICE_INCREASE/PENDING,
            renewal info priceIncreaseStatus 0 (StoreKit 2: pending); 'consent' agrees
            (PRICE_INCREASE/ACCEPTED, status 1, agreed) and the next renewal charges the new
            price; 'decline', or no answer by the renewal, ends the subscription at its period's
            end: EXPIRED/PRICE_INCREASE, expirationReason didNotConsentToPriceIncrease
            (expirationIntent 3); declining turns auto-renew off at once
            (DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED), and consenting before the period
            ends turns it back on. Declined in the Billing Grace Period, the subscription
            ends at once (EXPIRED/PRICE_INCREASE now). With --notify-only the increase needs no consent:
            PRICE_INCREASE/ACCEPTED, and it applies at the next renewal. New purchases pay the
            catalog's price, as in Xcode.

            Which of the two an increase is, is not the developer's switch in App Store
            Connect: Apple decides it by the size of the increase and the subscriber's country
            or region. It lets an increase go with a notice only if it is at most 50% of the
            price and at most US$5 (US$50 for a yearly subscription), at most once a year, where
            local law allows. --notify-only simulates an increase Apple let go; iapsim warns
            when it is one Apple asks consent for by its size: more than 50% of the renewal
            price, or, in US dollars, more than $5 ($50 for a yearly subscription). It does not
            know Apple's limits in other currencies, the regions whose law requires consent,
            or earlier increases.
            """,
        arguments: [.init("product-id", kind: .productID)],
        options: [
            OptionSpec(
                name: "consent-required",
                help: "The increase needs the subscriber's consent (the default): PRICE_INCREASE/PENDING."),
            OptionSpec(
                name: "notify-only",
                help: "The increase needs no consent (Apple decides by size and region): PRICE_INCREASE/ACCEPTED."),
        ],
        examples: [
            "iapsim buy com.example.app.pro.monthly --yes",
            "iapsim price-increase com.example.app.pro.monthly 14.99",
            "iapsim price-increase consent com.example.app.pro.monthly",
            "iapsim price-increase com.example.app.pro.monthly 19.99 --notify-only --json",
        ])

    let action: Action

    enum Action: Equatable {
        /// A new renewal price for the product's subscribers, with or without their consent.
        case announce(productID: String, newPrice: Decimal, requiresConsent: Bool)
        case consent(productID: String)
        case decline(productID: String)
    }

    init(_ words: ParsedWords) throws(UsageError) {
        let usage = "usage: iapsim price-increase <product-id> <new-price> [--consent-required | --notify-only]"
        let arguments = words.arguments
        if words.flag("consent-required"), words.flag("notify-only") {
            throw words.error("--consent-required and --notify-only contradict each other: give one")
        }
        if let verb = arguments.first, verb == "consent" || verb == "decline" {
            guard arguments.count == 2 else { throw words.error("usage: iapsim price-increase \(verb) <product-id>") }
            try words.refuse(["consent-required", "notify-only"], with: "'price-increase \(verb)'")
            action = verb == "consent" ? .consent(productID: arguments[1]) : .decline(productID: arguments[1])
            return
        }
        guard arguments.count == 2 else {
            throw words.error(arguments.count < 2 ? "missing product identifier or new price; \(usage)" : usage)
        }
        guard let price = Decimal(plainDecimal: arguments[1]), price > 0 else {
            throw words.error(
                "'\(arguments[1])' is not a price: give a plain decimal in the subscription's currency, such as 12.99")
        }
        action = .announce(productID: arguments[0], newPrice: price, requiresConsent: !words.flag("notify-only"))
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        _ = try session.storeKitContext()
        let change: PriceIncreaseChange
        let line: (PriceIncreaseChange) -> String
        switch action {
        case .announce(let productID, let newPrice, let requiresConsent):
            change = try session.increasePrice(productID, to: newPrice, requiresConsent: requiresConsent)
            line = { change in
                let price = "\(newPrice.plainString) \(change.info.currency)"
                let when = change.expirationDate.map { " on \(ISO8601Date.string($0))" } ?? ""
                return requiresConsent
                    ? "Price increase to \(price) for \(productID): waiting for the subscriber's consent "
                        + "(PRICE_INCREASE/PENDING); without it the subscription expires at its renewal\(when)."
                    : "Price increase to \(price) for \(productID): the subscriber was notified "
                        + "(PRICE_INCREASE/ACCEPTED); it applies at the next renewal\(when)."
            }
        case .consent(let productID):
            change = try session.consentToPriceIncrease(productID)
            line = { change in
                let price = change.increase.map { "\($0.newPrice.plainString) \(change.info.currency)" } ?? ""
                return "The subscriber agreed to the price increase of \(productID): it renews at \(price) "
                    + "(PRICE_INCREASE/ACCEPTED)."
            }
        case .decline(let productID):
            change = try session.declinePriceIncrease(productID)
            line = { change in
                if change.info.phase == .expired {
                    // Declined after a failed renewal, in the Billing Grace Period: it ended now.
                    return "The subscriber declined the price increase of \(productID): its renewal had failed, so "
                        + "the subscription expired now (EXPIRED/PRICE_INCREASE, expirationReason "
                        + "didNotConsentToPriceIncrease)."
                }
                let when = change.expirationDate.map { " on \(ISO8601Date.string($0))" } ?? " at its period's end"
                return "The subscriber declined the price increase of \(productID): the subscription expires\(when) "
                    + "(expirationReason didNotConsentToPriceIncrease)."
            }
        }
        var report = Report(
            json: .object([
                ("productID", .string(change.productID)), ("originalID", .int(change.info.originalID)),
                ("priceIncreaseStatus", .string(change.priceIncreaseStatus.rawValue)),
                ("newPrice", .optional(change.increase?.newPrice.plainString)),
                ("currency", .string(change.info.currency)),
                ("willAutoRenew", .bool(change.info.willAutoRenew)),
                ("expirationReason", .optional(change.info.expirationReason?.rawValue)),
                ("expirationDate", .date(change.expirationDate)),
            ]),
            lines: [line(change)])
        if let reason = change.consentReason, case .announce(_, let newPrice, _) = action {
            let size =
                switch reason {
                case .moreThanHalfThePrice: "more than 50% of the renewal price"
                case .moreThanDollars(let limit): "more than $\(limit.plainString)"
                }
            report.warnings.append(
                "Warning: Apple asks the subscriber's consent to an increase this size (\(size): "
                    + "\(newPrice.plainString) \(change.info.currency)); --notify-only simulates it without "
                    + "('iapsim help price-increase').")
        }
        return report
    }
}
