import Foundation
import IAPSimKit

/// Turns the arguments into an `Invocation`: a pure function, no I/O.
///
/// Options may come before or after the command name; `--opt value` and `--opt=value` both
/// work; `--` ends the options, so `iapsim buy -- -odd.id` buys `-odd.id`.
enum ArgumentParser {
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var positionals: [String] = []
        var values: [String: String] = [:]
        var repeated: [String: [String]] = [:]  // every value of a repeatable option
        var seen: [(spec: OptionSpec, spelling: String)] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals += arguments[index...]
                break
            }
            let spec: OptionSpec
            var inlineValue: String?
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let match = OptionSpec.named(name) else {
                    let known = OptionSpec.all.map { "--" + $0.name }
                    let hint = Suggestion.nearest(to: "--" + name, among: known).map { "; did you mean '\($0)'?" } ?? ""
                    throw UsageError("unknown option '\(argument)'\(hint)", command: commandName(in: positionals))
                }
                spec = match
            } else if argument.hasPrefix("-"), argument.count == 2, let match = OptionSpec.short(argument.last!) {
                spec = match
            } else if argument.hasPrefix("-"), argument.count > 1 {
                throw UsageError("unknown option '\(argument)'", command: commandName(in: positionals))
            } else {
                positionals.append(argument)
                continue
            }
            if spec.takesValue {
                if values[spec.name] != nil, !spec.repeatable {
                    throw UsageError(
                        "option '--\(spec.name)' given twice; it takes one value", command: commandName(in: positionals))
                }
                if let inlineValue {
                    values[spec.name] = inlineValue
                } else if index < arguments.count {
                    values[spec.name] = arguments[index]
                    index += 1
                } else {
                    throw UsageError(
                        "option '--\(spec.name)' needs a value (\(spec.synopsis))",
                        command: commandName(in: positionals))
                }
                if values[spec.name]!.isEmpty {
                    throw UsageError(
                        "option '--\(spec.name)' needs a non-empty value", command: commandName(in: positionals))
                }
                if spec.repeatable { repeated[spec.name, default: []].append(values[spec.name]!) }
            } else if inlineValue != nil {
                throw UsageError("option '--\(spec.name)' takes no value", command: commandName(in: positionals))
            }
            seen.append((spec, argument))
        }

        let parsed = GlobalOptions(
            catalogDirectory: values["catalog"], storeKitFile: values["storekit"],
            productIDsFile: values["product-ids"], stateDirectory: values["state-dir"],
            locale: values["locale"], storefront: values["storefront"], certsDirectory: values["certs"],
            environment: nil, json: seen.contains { $0.spec.name == "json" })
        let flags = Set(seen.map(\.spec.name))
        var options = parsed
        if let text = values["environment"] {
            guard let environment = AppStoreEnvironment.named(text) else {
                throw UsageError(
                    "--environment \(text): expected Sandbox, Production, Xcode or LocalTesting",
                    command: commandName(in: positionals))
            }
            options.environment = environment
        }
        if flags.contains("jws"), !options.json {
            throw UsageError("--jws goes with --json: it adds jwsRepresentation to the JSON", command: commandName(in: positionals))
        }
        options.quiet = flags.contains("quiet")
        options.noColor = flags.contains("no-color")

        if flags.contains("version") {
            if let extra = positionals.first { throw UsageError("unexpected argument '\(extra)' after --version") }
            return Invocation(options: options, command: .version)
        }
        guard let word = positionals.first else {
            if flags.contains("help") { return Invocation(options: options, command: .help(nil)) }
            throw UsageError("missing command; try 'iapsim list'")
        }
        guard let name = CommandName(word: word) else {
            let words = CommandName.allCases.flatMap { [$0.rawValue] + $0.aliases }
            let hint = Suggestion.nearest(to: word, among: words).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError("unknown command '\(word)'\(hint)")
        }
        if flags.contains("help") { return Invocation(options: options, command: .help(.command(name))) }
        for (spec, spelling) in seen {
            if let commands = spec.commands, !commands.contains(name) {
                throw UsageError("'\(spelling)' is not an option of '\(name.rawValue)'", command: name)
            }
        }
        let arguments = Array(positionals.dropFirst())
        let command = try parseCommand(name, arguments: arguments, values: values, repeated: repeated, flags: flags)
        return Invocation(options: options, command: command)
    }

    private static func parseCommand(
        _ name: CommandName, arguments: [String], values: [String: String], repeated: [String: [String]],
        flags: Set<String>
    ) throws(UsageError) -> Command {
        func one(_ what: String) throws(UsageError) -> String {
            guard let first = arguments.first else {
                let label = what.replacingOccurrences(of: "-id", with: " identifier")
                throw UsageError("missing \(label): iapsim \(name.rawValue) <\(what)>", command: name)
            }
            try expect(arguments, count: 1, for: name)
            return first
        }
        func transactionID() throws(UsageError) -> UInt64 {
            let text = try one("transaction-id")
            guard let id = UInt64(text), id > 0 else {
                throw UsageError("'\(text)' is not a transaction identifier (a positive whole number)", command: name)
            }
            return id
        }
        switch name {
        case .listProducts:
            try expect(arguments, count: 0, for: name)
            return .listProducts
        case .buy:
            let productID = try one("product-id")
            if flags.contains("outside-app") {
                for option in ["outcome", "yes", "offer"] where flags.contains(option) || values[option] != nil {
                    throw UsageError(
                        "--\(option) does not go with --outside-app: a purchase made outside the app has no prompt "
                            + "and completes", command: name)
                }
                return .buyOutsideApp(productID: productID, quantity: try quantity(values["quantity"]))
            }
            var offer: OfferRequest?
            if let id = values["offer"] {
                guard !id.isEmpty else { throw UsageError("--offer: expected an offer identifier", command: name) }
                do {
                    offer = .offer(
                        id: id, signature: try values["offer-signature"].map(PromotionalOfferSignature.init(text:)),
                        appAccountToken: values["app-account-token"]?.lowercased())
                } catch {
                    throw UsageError("--offer-signature \(error.localizedDescription)", command: name)
                }
            } else if values["offer-signature"] != nil {
                throw UsageError("--offer-signature goes with --offer OFFER_ID", command: name)
            }
            let asFamilyMember = flags.contains("as-family-member")
            if asFamilyMember, values["outcome"] != nil || offer != nil {
                throw UsageError(PurchaseRequestError.familyMemberPurchase.errorDescription ?? "", command: name)
            }
            return .buy(
                productID: productID, quantity: try quantity(values["quantity"]), assumeYes: flags.contains("yes"),
                outcome: try values["outcome"].map(outcome), offer: offer,
                appAccountToken: try values["app-account-token"].map(appAccountToken), asFamilyMember: asFamilyMember,
                monthlyBilling: try values["billing-plan"].map { text throws(UsageError) -> Bool in
                    do throws(PurchaseRequestError) {
                        return try BillingPlanType(text: text) == .monthly
                    } catch {
                        throw UsageError(error.errorDescription ?? "", command: name)
                    }
                } ?? false)
        case .redeemOfferCode:
            try expect(arguments, count: 2, for: name)
            return .redeemOfferCode(productID: arguments[0], codeID: arguments[1], assumeYes: flags.contains("yes"))
        case .offerSignature:
            try expect(arguments, count: 2, for: name)
            var nonce: UUID?
            if let text = values["nonce"] {
                guard let uuid = UUID(uuidString: text) else {
                    throw UsageError("--nonce \(text): expected a UUID", command: name)
                }
                nonce = uuid
            }
            var timestamp: Int64?
            if let text = values["timestamp"] {
                guard let value = Int64(text), value >= 0 else {
                    throw UsageError("--timestamp \(text): expected milliseconds since 1970", command: name)
                }
                timestamp = value
            }
            return .offerSignature(
                productID: arguments[0], offerID: arguments[1], nonce: nonce, timestamp: timestamp,
                appAccountToken: try values["app-account-token"].map(appAccountToken))
        case .restore:
            try expect(arguments, count: 0, for: name)
            return .restore
        case .check:
            try expect(arguments, count: 0, for: name)
            return .check
        case .status:
            try expect(arguments, count: 0, for: name)
            return .status(withJWS: flags.contains("jws"))
        case .transactions:
            if arguments.first == "delete" {
                for option in ["product", "state", "unfinished", "jws"] where flags.contains(option) {
                    throw UsageError("--\(option) does not go with 'iapsim transactions delete'", command: name)
                }
                guard arguments.count >= 2 else {
                    throw UsageError(
                        "missing transaction identifier: iapsim transactions delete <transaction-id>", command: name)
                }
                try expect(arguments, count: 2, for: name)
                guard let id = UInt64(arguments[1]), id > 0 else {
                    throw UsageError(
                        "'\(arguments[1])' is not a transaction identifier (a positive whole number)", command: name)
                }
                return .deleteTransaction(id: id)
            }
            if let action = arguments.first {
                throw UsageError("unknown transactions action '\(action)'; use delete", command: name)
            }
            var filter: HistoryFilter? = flags.contains("unfinished") ? .unfinished : nil
            if let text = values["state"] {
                guard let state = HistoryFilter(rawValue: text) else {
                    let known = HistoryFilter.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError("--state \(text): expected one of \(known)", command: name)
                }
                if filter != nil, filter != state {
                    throw UsageError("--unfinished and --state \(text) contradict each other", command: name)
                }
                filter = state
            }
            return .transactions(productID: values["product"], filter: filter, withJWS: flags.contains("jws"))
        case .approve: return .approve(id: try transactionID())
        case .decline: return .decline(id: try transactionID())
        case .resolve: return .resolve(id: try transactionID())
        case .finish: return .finish(id: try transactionID())
        case .refund:
            let id = try transactionID()
            if flags.contains("decline"), flags.contains("reverse") {
                throw UsageError("--decline and --reverse go separately: give one", command: name)
            }
            for flag in ["decline", "reverse"] where flags.contains(flag) {
                if values["reason"] != nil {
                    throw UsageError(
                        "--reason does not go with --\(flag): only a refund granted has a reason", command: name)
                }
                return flag == "decline" ? .declineRefund(id: id) : .reverseRefund(id: id)
            }
            let text = values["reason"] ?? "other"
            guard let reason = Transaction.RevocationReason(rawValue: text) else {
                throw UsageError("--reason \(text): expected developerIssue or other", command: name)
            }
            return .refund(id: id, reason: reason)
        case .requestRefund:
            let id = try transactionID()
            let reason = try values["reason"].map { text throws(UsageError) -> RefundRequest.Reason in
                guard let reason = RefundRequest.Reason(rawValue: text) else {
                    let known = RefundRequest.Reason.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError("--reason \(text): expected one of \(known)", command: name)
                }
                return reason
            }
            return .requestRefund(id: id, reason: reason)
        case .priceIncrease:
            return .priceIncrease(try priceIncreaseAction(arguments, flags: flags))
        case .family:
            guard arguments.first == "revoke" else {
                if let action = arguments.first {
                    throw UsageError("unknown family action '\(action)'; use revoke", command: name)
                }
                throw UsageError("missing action: iapsim family revoke <transaction-id>", command: name)
            }
            guard arguments.count >= 2 else {
                throw UsageError("missing transaction identifier: iapsim family revoke <transaction-id>", command: name)
            }
            try expect(arguments, count: 2, for: name)
            guard let id = UInt64(arguments[1]), id > 0 else {
                throw UsageError(
                    "'\(arguments[1])' is not a transaction identifier (a positive whole number)", command: name)
            }
            return .familyRevoke(id: id)
        case .cancelSubscription:
            return .cancelSubscription(productID: try one("product-id"), undo: flags.contains("undo"))
        case .expire: return .expire(productID: try one("product-id"))
        case .renew: return .renew(productID: try one("product-id"))
        case .clock:
            return .clock(try clockAction(arguments, to: values["to"]))
        case .settings:
            switch arguments.first {
            case nil: return .settings(.show)
            case "set":
                guard arguments.count == 3 else {
                    throw UsageError("usage: iapsim settings set KEY VALUE", command: name)
                }
                return .settings(.set(try settingKey(arguments[1]), value: arguments[2]))
            case "reset":
                try expect(arguments, count: 2, for: name)
                return .settings(.reset(try arguments.dropFirst().first.map(settingKey)))
            case let other?:
                throw UsageError("unknown settings action '\(other)'; use set or reset", command: name)
            }
        case .reset:
            try expect(arguments, count: 0, for: name)
            let scopes: [ResetScope] = [.local, .transactions, .settings, .all].filter { flags.contains($0.rawValue) }
            guard scopes.count <= 1 else {
                throw UsageError(
                    scopes.map { "--" + $0.rawValue }.joined(separator: " and ")
                        + " go separately: give one of --local, --transactions, --settings or --all",
                    command: name)
            }
            return .reset(scopes.first ?? .all, assumeYes: flags.contains("yes"))
        case .jws:
            switch arguments.first {
            case "transaction":
                guard arguments.count == 2, let id = UInt64(arguments[1]), id > 0 else {
                    throw UsageError("usage: iapsim jws transaction <transaction-id>", command: name)
                }
                return .jws(.transaction(id))
            case "renewal":
                guard arguments.count == 2 else {
                    throw UsageError("usage: iapsim jws renewal <product-id|original-transaction-id>", command: name)
                }
                return .jws(.renewal(arguments[1]))
            case "app-transaction":
                try expect(arguments, count: 1, for: name)
                return .jws(.appTransaction)
            case "decode":
                try expect(arguments, count: 2, for: name)
                return .jws(.decode(arguments.count == 2 && arguments[1] != "-" ? arguments[1] : nil))
            case let other:
                throw UsageError(
                    "\(other.map { "unknown jws action '\($0)'" } ?? "missing jws action"); use transaction, renewal, app-transaction or decode",
                    command: name)
            }
        case .certs:
            switch arguments.first {
            case nil: return .certs(.show)
            case "export":
                guard arguments.count == 2 else { throw UsageError("usage: iapsim certs export DIR", command: name) }
                return .certs(.export(directory: arguments[1]))
            case "rotate":
                try expect(arguments, count: 1, for: name)
                return .certs(.rotate)
            case let other?:
                throw UsageError("unknown certs action '\(other)'; use export or rotate", command: name)
            }
        case .notifications:
            switch arguments.first {
            case nil:
                return .notifications(.list(try notificationFilter(values: values, flags: flags)))
            case "show":
                guard arguments.count == 2 else {
                    throw UsageError("usage: iapsim notifications show <notification-uuid>", command: name)
                }
                return .notifications(.show(uuid: arguments[1].lowercased()))
            case let other?:
                throw UsageError("unknown notifications action '\(other)'; use show", command: name)
            }
        case .listen:
            try expect(arguments, count: 0, for: name)
            guard let url = values["forward-to"] else {
                throw UsageError("missing --forward-to URL: where to POST the notifications", command: name)
            }
            let endpoint: HTTPEndpoint
            do {
                endpoint = try HTTPEndpoint(url)
            } catch {
                throw UsageError("--forward-to \(url): \(error.message)", command: name)
            }
            var timeout = 10.0
            if let text = values["timeout"] {
                guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 600 else {
                    throw UsageError("--timeout \(text): expected seconds from 0 to 600, such as 5 or 0.5", command: name)
                }
                timeout = seconds
            }
            var headers: [HTTPHeader] = []
            for text in repeated["header"] ?? [] {
                guard let header = HTTPHeader(text) else {
                    throw UsageError("--header \(text): expected 'Name: value'", command: name)
                }
                headers.append(header)
            }
            var kinds: Set<ServerNotification.Kind>?
            if let text = values["events"] {
                kinds = []
                for word in text.split(separator: ",") {
                    guard let kind = ServerNotification.Kind(rawValue: word.trimmingCharacters(in: .whitespaces).uppercased())
                    else {
                        throw UsageError(
                            "--events \(word): not a notification type; expected e.g. DID_RENEW,EXPIRED", command: name)
                    }
                    kinds?.insert(kind)
                }
            }
            return .listen(
                ListenRequest(
                    endpoint: endpoint, drain: flags.contains("drain"), kinds: kinds, timeout: timeout, headers: headers))
        case .trigger:
            if flags.contains("list") {
                try expect(arguments, count: 0, for: name)
                return .trigger(name: nil, productID: nil)
            }
            return .trigger(name: try one("type[/subtype]"), productID: values["product"])
        case .notifyTest:
            try expect(arguments, count: 0, for: name)
            return .notifyTest
        case .serve:
            try expect(arguments, count: 0, for: name)
            var port: UInt16 = 0
            if let text = values["port"] {
                guard let number = UInt16(text), text.allSatisfy(\.isNumber) else {
                    throw UsageError("--port \(text): expected a port from 0 to 65535 (0 picks a free one)", command: name)
                }
                port = number
            }
            if values["key-id"] != nil || values["issuer-id"] != nil, values["key-file"] == nil {
                throw UsageError("--key-id and --issuer-id go with --key-file", command: name)
            }
            return .serve(
                ServeRequest(
                    host: values["host"] ?? "127.0.0.1", port: port, portFile: values["port-file"],
                    keyFile: values["key-file"], keyID: values["key-id"], issuerID: values["issuer-id"]))
        case .completion:
            let word = try one("shell")
            if word == "products" { return .completionProducts }
            guard let shell = Shell(rawValue: word) else {
                throw UsageError("completion \(word): expected bash, zsh or fish", command: name)
            }
            return .completion(shell)
        case .help:
            if arguments.count > 1 { throw UsageError("unexpected argument '\(arguments[1])'", command: name) }
            return .help(try arguments.first.map(helpTopic))
        }
    }

    private static func notificationFilter(values: [String: String], flags: Set<String>) throws(UsageError)
        -> NotificationFilter
    {
        var filter = NotificationFilter(onlyFailures: flags.contains("only-failures"))
        if let text = values["type"] {
            let parts = text.uppercased().split(separator: "/", maxSplits: 1).map(String.init)
            guard let kind = ServerNotification.Kind(rawValue: parts[0]) else {
                throw UsageError("--type \(text): not a notification type such as DID_RENEW", command: .notifications)
            }
            filter.kind = kind
            if parts.count == 2 {
                guard let subtype = ServerNotification.Subtype(rawValue: parts[1]) else {
                    throw UsageError("--type \(text): not a subtype such as GRACE_PERIOD", command: .notifications)
                }
                filter.subtype = subtype
            }
        }
        if let text = values["transaction"] {
            guard let id = UInt64(text), id > 0 else {
                throw UsageError("--transaction \(text): not a transaction identifier", command: .notifications)
            }
            filter.transactionID = id
        }
        for (option, keyPath) in [("since", \NotificationFilter.start), ("until", \NotificationFilter.end)] {
            if let text = values[option] {
                guard let date = ISO8601Date.date(text) else {
                    throw UsageError(
                        "--\(option) \(text): expected an ISO 8601 date such as 2027-01-01T00:00:00Z", command: .notifications)
                }
                filter[keyPath: keyPath] = date
            }
        }
        return filter
    }

    private static func helpTopic(_ word: String) throws(UsageError) -> HelpTopic {
        if let name = CommandName(word: word) { return .command(name) }
        if word == "manpage" { return .manpage }
        if let topic = HelpTopic.named.first(where: { $0.word == word })?.topic { return topic }
        let topics = CommandName.allCases.map(\.rawValue) + HelpTopic.named.map(\.word)
        let hint = Suggestion.nearest(to: word, among: topics).map { "; did you mean '\($0)'?" } ?? ""
        throw UsageError("no help topic '\(word)'\(hint)", command: .help)
    }

    private static func settingKey(_ word: String) throws(UsageError) -> SettingKey {
        guard let key = SettingKey(rawValue: word) else {
            let hint =
                Suggestion.nearest(to: word, among: SettingKey.allCases.map(\.rawValue)).map { "; did you mean '\($0)'?" }
                ?? ""
            throw UsageError(
                "unknown setting '\(word)'\(hint); 'iapsim help settings-keys' lists them", command: .settings)
        }
        return key
    }

    /// `price-increase <product-id> <new-price> [--consent-required | --notify-only]`,
    /// `price-increase consent <product-id>`, `price-increase decline <product-id>`.
    private static func priceIncreaseAction(_ arguments: [String], flags: Set<String>) throws(UsageError)
        -> PriceIncreaseAction
    {
        let name = CommandName.priceIncrease
        let usage = "usage: iapsim price-increase <product-id> <new-price> [--consent-required | --notify-only]"
        if flags.contains("consent-required"), flags.contains("notify-only") {
            throw UsageError("--consent-required and --notify-only contradict each other: give one", command: name)
        }
        if let action = arguments.first, action == "consent" || action == "decline" {
            guard arguments.count == 2 else {
                throw UsageError("usage: iapsim price-increase \(action) <product-id>", command: name)
            }
            for flag in ["consent-required", "notify-only"] where flags.contains(flag) {
                throw UsageError("--\(flag) does not go with 'price-increase \(action)'", command: name)
            }
            return action == "consent" ? .consent(productID: arguments[1]) : .decline(productID: arguments[1])
        }
        guard arguments.count == 2 else {
            throw UsageError(
                arguments.count < 2 ? "missing product identifier or new price; \(usage)" : usage, command: name)
        }
        guard let price = Decimal(plainDecimal: arguments[1]), price > 0 else {
            throw UsageError(
                "'\(arguments[1])' is not a price: give a plain decimal in the subscription's currency, such as 12.99",
                command: name)
        }
        return .announce(productID: arguments[0], newPrice: price, requiresConsent: !flags.contains("notify-only"))
    }

    private static func clockAction(_ arguments: [String], to date: String?) throws(UsageError) -> ClockAction {
        func parsedDate(_ text: String) throws(UsageError) -> Date {
            guard let date = ISO8601Date.date(text) else {
                throw UsageError(ClockError.invalidDate(text).errorDescription ?? text, command: .clock)
            }
            return date
        }
        let action = arguments.first
        if date != nil, action != "advance" {
            throw UsageError("--to goes with 'iapsim clock advance --to DATE'", command: .clock)
        }
        switch action {
        case nil:
            return .show
        case "advance":
            if let date {
                try expect(arguments, count: 1, for: .clock)
                return .set(try parsedDate(date))
            }
            guard arguments.count == 2 else {
                throw UsageError("usage: iapsim clock advance DURATION (e.g. P1M) or --to DATE", command: .clock)
            }
            guard let components = ISODuration.components(arguments[1]) else {
                throw UsageError(ClockError.invalidDuration(arguments[1]).errorDescription ?? "", command: .clock)
            }
            return .advance(components)
        case "set":
            guard arguments.count == 2 else { throw UsageError("usage: iapsim clock set DATE", command: .clock) }
            return .set(try parsedDate(arguments[1]))
        case "freeze", "run", "reset":
            try expect(arguments, count: 1, for: .clock)
            return action == "freeze" ? .freeze : action == "run" ? .run : .reset
        case let other?:
            throw UsageError("unknown clock action '\(other)'; use advance, set, freeze, run or reset", command: .clock)
        }
    }

    private static func outcome(_ text: String) throws(UsageError) -> StoreSession.Outcome {
        do {
            return try StoreSession.Outcome(text: text)
        } catch {
            throw UsageError(error.errorDescription ?? text, command: .buy)
        }
    }

    /// `Product.PurchaseOption.appAccountToken(_:)` takes a UUID; the App Store's signed
    /// transactions spell it in lowercase, and so does iapsim.
    private static func appAccountToken(_ text: String) throws(UsageError) -> String {
        do {
            return try UUID(appAccountToken: text).uuidString.lowercased()
        } catch {
            throw UsageError(error.errorDescription ?? text, command: .buy)
        }
    }

    private static func quantity(_ text: String?) throws(UsageError) -> Int {
        guard let text else { return 1 }
        do {
            return try PurchaseQuantity(text: text).value
        } catch {
            throw UsageError(error.errorDescription ?? text, command: .buy)
        }
    }

    private static func expect(_ arguments: [String], count: Int, for name: CommandName) throws(UsageError) {
        if arguments.count > count {
            throw UsageError("unexpected argument '\(arguments[count])'", command: name)
        }
    }

    private static func commandName(in positionals: [String]) -> CommandName? {
        positionals.first.flatMap(CommandName.init(word:))
    }
}
