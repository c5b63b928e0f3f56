import IAPSimKit

/// One option: its spellings, whether it takes a value, and which commands accept it
/// (nil: every command). Help text is generated from the same table the parser reads.
struct OptionSpec: Sendable {
    var name: String
    var short: Character?
    /// The placeholder for its value, e.g. `DIR`; nil for a flag.
    var valueName: String?
    var commands: Set<CommandName>?
    var help: String
    /// The values it takes when they are a known set, for completion; empty otherwise.
    var values: [String] = []
    /// May be given more than once, each value kept (`--header`).
    var repeatable = false

    var takesValue: Bool { valueName != nil }

    /// `--catalog DIR`, `-y, --yes`.
    var synopsis: String {
        let long = "--" + name + (valueName.map { " " + $0 } ?? "")
        return short.map { "-\($0), " + long } ?? long
    }

    static let all: [OptionSpec] = [
        OptionSpec(
            name: "catalog", valueName: "DIR",
            help: "Catalog folder (Products.storekit, IAPProductIDs.plist). Env: IAPSIM_CATALOG."),
        OptionSpec(name: "storekit", valueName: "FILE", help: "The store's products: an Xcode .storekit file."),
        OptionSpec(name: "product-ids", valueName: "FILE", help: "The app's identifiers: a plist (an array, or a dictionary keyed by identifier)."),
        OptionSpec(name: "state-dir", valueName: "DIR", help: "Where purchases.json lives. Env: IAPSIM_STATE_DIR."),
        OptionSpec(
            name: "locale", valueName: "ID", help: "Price and text locale, e.g. de_DE. Env: IAPSIM_LOCALE.",
            values: SettingKey.locale.suggestedValues),
        OptionSpec(
            name: "storefront", valueName: "CODE", help: "The buyer's storefront, e.g. JPN (ISO 3166-1 alpha-3).",
            values: SettingKey.storefront.suggestedValues),
        OptionSpec(
            name: "certs", valueName: "DIR", commands: [.jws, .certs, .transactions, .status, .notifications, .listen, .serve],
            help: "The test certificates to sign with (default: STATE_DIR/certs). Env: IAPSIM_CERTS_DIR."),
        OptionSpec(
            name: "environment", valueName: "ENV", commands: [.jws, .transactions, .status, .notifications, .listen, .serve],
            help: "Signed data's environment: Sandbox, Production, Xcode or LocalTesting.",
            values: AppStoreEnvironment.allCases.map(\.rawValue)),
        OptionSpec(
            name: "jws", commands: [.transactions, .status],
            help: "With --json: each transaction's jwsRepresentation, signed."),
        OptionSpec(name: "json", help: "Print the result as JSON on stdout."),
        OptionSpec(name: "quiet", short: "q", help: "Print nothing but errors; the exit status tells."),
        OptionSpec(name: "no-color", help: "No colour or symbols (also when NO_COLOR is set)."),
        OptionSpec(
            name: "quantity", valueName: "N", commands: [.buy],
            help: "How many of a consumable to buy, 1–10 (default 1).",
            values: PurchaseQuantity.range.map(String.init)),
        OptionSpec(
            name: "outcome", valueName: "OUTCOME", commands: [.buy],
            help: "Force this purchase's end: success, cancel, fail[=ERROR], ask-to-buy, interrupted.",
            values: ["success", "cancel", "fail", "ask-to-buy", "interrupted"] + SimulatedError.all.filter(StoreKitTestAPI.purchase.allows).map { "fail=" + $0.qualifiedName }),
        OptionSpec(
            name: "billing-plan", valueName: "PLAN", commands: [.buy],
            help: "How a subscription is paid: upfront (the default), or monthly within its commitment.",
            values: ["monthly", "upfront"]),
        OptionSpec(
            name: "offer", valueName: "OFFER_ID", commands: [.buy],
            help: "Redeem a promotional or win-back offer of the subscription (its offerID)."),
        OptionSpec(
            name: "offer-signature", valueName: "SIG", commands: [.buy],
            help: "The promotional offer's signature, KEY_ID:NONCE:TIMESTAMP:SIGNATURE (iapsim offer-signature)."),
        OptionSpec(
            name: "nonce", valueName: "UUID", commands: [.offerSignature],
            help: "The signature's nonce (default: a new UUID)."),
        OptionSpec(
            name: "timestamp", valueName: "MS", commands: [.offerSignature],
            help: "The signature's time in milliseconds since 1970 (default: now)."),
        OptionSpec(
            name: "app-account-token", valueName: "UUID", commands: [.buy, .offerSignature],
            help: "Product.PurchaseOption.appAccountToken: a UUID the transaction and its renewals carry."),
        OptionSpec(
            name: "as-family-member", commands: [.buy],
            help: "The family organiser buys a familyShareable product and shares it; nothing is charged here."),
        OptionSpec(
            name: "product", valueName: "ID", commands: [.transactions, .trigger],
            help: "Only this product's transactions; with trigger, the product to use."),
        OptionSpec(
            name: "type", valueName: "TYPE", commands: [.notifications],
            help: "Only notifications of this TYPE or TYPE/SUBTYPE, e.g. DID_RENEW.",
            values: ServerNotification.Kind.allCases.map(\.rawValue)),
        OptionSpec(
            name: "transaction", valueName: "ID", commands: [.notifications],
            help: "Only notifications about this transaction or its subscription."),
        OptionSpec(name: "only-failures", commands: [.notifications], help: "Only notifications not delivered."),
        OptionSpec(
            name: "since", valueName: "DATE", commands: [.notifications], help: "Only notifications from this date on."),
        OptionSpec(
            name: "until", valueName: "DATE", commands: [.notifications], help: "Only notifications before this date."),
        OptionSpec(
            name: "forward-to", valueName: "URL", commands: [.listen],
            help: "The webhook to POST notifications to: an http:// URL."),
        OptionSpec(name: "drain", commands: [.listen], help: "Deliver what is due, retries included, then exit."),
        OptionSpec(
            name: "events", valueName: "TYPES", commands: [.listen],
            help: "Only these notification types, comma-separated."),
        OptionSpec(
            name: "timeout", valueName: "SECONDS", commands: [.listen],
            help: "Give up on a delivery after this long (default 10)."),
        OptionSpec(
            name: "header", valueName: "'NAME: VALUE'", commands: [.listen],
            help: "Add this header to each POST (repeatable).", repeatable: true),
        OptionSpec(name: "list", commands: [.trigger], help: "List what trigger can produce."),
        OptionSpec(
            name: "port", valueName: "N", commands: [.serve], help: "The port to listen on; 0 (the default) picks a free one."),
        OptionSpec(
            name: "host", valueName: "ADDRESS", commands: [.serve], help: "The address to listen on (default 127.0.0.1)."),
        OptionSpec(
            name: "port-file", valueName: "FILE", commands: [.serve], help: "Write the port there once listening, for scripts."),
        OptionSpec(
            name: "key-file", valueName: "FILE", commands: [.serve],
            help: "The developer's .p8 key: bearer tokens must be signed with it."),
        OptionSpec(name: "key-id", valueName: "ID", commands: [.serve], help: "With --key-file: the key's id (kid)."),
        OptionSpec(name: "issuer-id", valueName: "ID", commands: [.serve], help: "With --key-file: the issuer id (iss)."),
        OptionSpec(
            name: "state", valueName: "STATE", commands: [.transactions],
            help: "Only: purchased, pending, unfinished, expired, upgraded, revoked.",
            values: HistoryFilter.allCases.map(\.rawValue)),
        OptionSpec(name: "unfinished", commands: [.transactions], help: "Only transactions the app has not finished."),
        OptionSpec(
            name: "reason", valueName: "REASON", commands: [.refund, .requestRefund],
            help: "refund: revocationReason, developerIssue or other (default other); "
                + "request-refund: consumptionRequestReason, e.g. UNINTENDED_PURCHASE.",
            values: Transaction.RevocationReason.allCases.map(\.rawValue)
                + RefundRequest.Reason.allCases.map(\.rawValue)),
        OptionSpec(
            name: "decline", commands: [.refund], help: "Decline the customer's refund request (REFUND_DECLINED)."),
        OptionSpec(
            name: "reverse", commands: [.refund],
            help: "Reverse a refund granted before (REFUND_REVERSED): the revocation is undone."),
        OptionSpec(
            name: "outside-app", commands: [.buy],
            help: "A purchase made outside the app (another device, the App Store): no prompt; "
                + "Transaction.updates delivers it at the app's next launch."),
        OptionSpec(
            name: "consent-required", commands: [.priceIncrease],
            help: "The increase needs the subscriber's consent (the default): PRICE_INCREASE/PENDING."),
        OptionSpec(
            name: "notify-only", commands: [.priceIncrease],
            help: "The increase needs no consent; it applies at the next renewal: PRICE_INCREASE/ACCEPTED."),
        OptionSpec(name: "undo", commands: [.cancelSubscription], help: "Turn auto-renew back on."),
        OptionSpec(
            name: "to", valueName: "DATE", commands: [.clock], help: "With advance: move to this ISO 8601 date."),
        OptionSpec(name: "yes", short: "y", commands: [.buy, .redeemOfferCode, .reset], help: "Do not ask for confirmation."),
        OptionSpec(
            name: "local", commands: [.reset], help: "Forget only the app's record (a reinstall); keep the account."),
        OptionSpec(
            name: "transactions", commands: [.reset],
            help: "Delete every transaction (clearTransactions); keep the settings and the clock."),
        OptionSpec(
            name: "settings", commands: [.reset],
            help: "Settings back to their defaults (resetToDefaultState); keep the transactions."),
        OptionSpec(
            name: "all", commands: [.reset],
            help: "Erase everything: transactions, settings, clock (what a bare reset does)."),
        OptionSpec(name: "help", short: "h", help: "Show help for iapsim or the command."),
        OptionSpec(name: "version", help: "Show the version."),
    ]

    static func named(_ name: String) -> OptionSpec? {
        all.first { $0.name == name }
    }

    static func short(_ letter: Character) -> OptionSpec? {
        all.first { $0.short == letter }
    }

    /// The options `command` accepts, its own first.
    static func accepted(by command: CommandName) -> [OptionSpec] {
        all.filter { $0.commands?.contains(command) == true } + all.filter { $0.commands == nil }
    }
}
