import Foundation
import IAPSimJSON
import IAPSimKit

struct Transactions: CLICommand, Equatable {
    static let spec = CommandSpec(
        name: "transactions", abstract: "List the account's transactions, like Xcode's Transaction Manager.",
        synopsis: "[--product ID] [--state STATE | --unfinished] | delete <transaction-id>",
        discussion: """
            Every transaction with its identifier, original identifier, product, state
            (purchased, expired, upgraded, revoked; renewal; unfinished), purchase and expiry
            dates, and price with the offer it was bought under (0 USD (introductory offer,
            free trial)), then the pending purchases and the Ask to Buy requests that expired
            unanswered. --json gives each transaction with StoreKit 2's field names plus
            "state" and "isFinished".
            'delete ID' is SKTestSession.deleteTransaction(identifier:): the transaction leaves
            the history, the entitlements and the app's record, for good. Deleting a
            subscription's original transaction deletes the whole subscription: its renewals,
            upgrades and renewal state. A pending request can be deleted too.
            """,
        arguments: [.init("action", kind: .word(["delete"])), .init("transaction-id", kind: .transactionID)],
        options: [
            .certs,
            .environment,
            .jws,
            .value("product", "ID", help: "Only this product's transactions.", completes: .productID),
            OptionSpec(
                name: "state", valueName: "STATE",
                help: "Only: purchased, pending, unfinished, expired, upgraded, revoked.",
                values: HistoryFilter.allCases.map(\.rawValue)),
            OptionSpec(name: "unfinished", help: "Only transactions the app has not finished."),
        ],
        examples: [
            "iapsim transactions", "iapsim transactions --unfinished",
            "iapsim transactions --state pending --json",
            "iapsim buy com.example.app.book && iapsim transactions delete 1",
        ])

    let action: Action

    enum Action: Equatable {
        case list(productID: String?, filter: HistoryFilter?, withJWS: Bool)
        /// `transactions delete <id>`: `SKTestSession.deleteTransaction(identifier:)`.
        case delete(id: UInt64)
    }

    init(_ words: ParsedWords) throws(UsageError) {
        if words.arguments.first == "delete" {
            try words.refuse(["product", "state", "unfinished", "jws"], with: "'iapsim transactions delete'")
            guard words.arguments.count >= 2 else {
                throw words.error("missing transaction identifier: iapsim transactions delete <transaction-id>")
            }
            try words.expect(count: 2)
            action = .delete(id: try words.transactionID(words.arguments[1]))
            return
        }
        if let verb = words.arguments.first { throw words.error("unknown transactions action '\(verb)'; use delete") }
        var filter: HistoryFilter? = words.flag("unfinished") ? .unfinished : nil
        if let text = words.value("state") {
            guard let state = HistoryFilter(rawValue: text) else {
                let known = HistoryFilter.allCases.map(\.rawValue).joined(separator: ", ")
                throw words.error("--state \(text): expected one of \(known)")
            }
            if filter != nil, filter != state {
                throw words.error("--unfinished and --state \(text) contradict each other")
            }
            filter = state
        }
        action = .list(productID: words.value("product"), filter: filter, withJWS: words.flag("jws"))
    }

    func run(in context: CommandContext) throws -> Report {
        switch action {
        case .list(let productID, let filter, let withJWS):
            return try list(productID: productID, filter: filter, withJWS: withJWS, in: context)
        case .delete(let id):
            return try delete(id, in: context)
        }
    }
}

extension Transactions {
    /// A member a listing's row adds to a transaction's public form (`storeKitJSON`): its name,
    /// its JSON Schema (in the generated schema, beside the form's own members) and its value
    /// for a history entry and the entry's signed form (nil without `--jws`).
    struct RowMember: Sendable {
        let name: String
        let schema: JSONValue
        let value: @Sendable (TransactionHistory.Entry, _ jws: String?) -> JSONValue?

        init(
            _ name: String, _ schema: JSONValue,
            _ value: @escaping @Sendable (TransactionHistory.Entry, _ jws: String?) -> JSONValue?
        ) {
            self.name = name
            self.schema = schema
            self.value = value
        }
    }

    /// The signed form, which `status --jws` adds to an entitlement too.
    static let signedMember = RowMember(
        "jwsRepresentation",
        JSONSchema.of(
            "string", pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$",
            description: "With --jws: Transaction.jwsRepresentation, signed.")
    ) { _, jws in jws.map(JSONValue.string) }

    /// What a listing's row adds, in the order it writes them.
    static let rowMembers: [RowMember] = [
        RowMember(
            "orderID",
            JSONSchema.of(
                "string", pattern: "^M[0-9A-HJKMNP-TV-Z]{9}([0-9A-HJKMNP-TV-Z]{4})?$",
                description:
                    "The order on the buyer's receipt, derived from originalID: renewals share their purchase's.")
        ) { entry, _ in .string(entry.transaction.orderID) },
        RowMember("state", JSONSchema.of("string", values: TransactionState.allCases.map(\.rawValue))) { entry, _ in
            .string(entry.state.rawValue)
        },
        RowMember("isFinished", JSONSchema.of("boolean")) { entry, _ in .bool(entry.isFinished) },
        signedMember,
    ]

    /// `rowMembers` as the schema generator takes them.
    static var rowSchemaMembers: [TransactionViewMember] { rowMembers.map { .init(extra: $0.name, $0.schema) } }

    /// `rowMembers`' names, as written, and values without their schemas: a row is written per
    /// transaction of a listing, and copying a member would retain its schema each time.
    private static let rowWriters = rowMembers.map { (JSONKey($0.name), $0.value) }

    /// The account's history, like Xcode's Transaction Manager, with the pending purchases.
    private func list(productID: String?, filter: HistoryFilter?, withJWS: Bool, in context: CommandContext) throws
        -> Report
    {
        let (_, session) = try context.catalogAndSession()
        let history = try session.history(productID: productID, filter: filter)
        let sign = withJWS ? try session.transactionSigner(context.signer()) : nil
        let storeKit = try session.storeKitContext()
        var report = Report(
            json: .stream { stream in
                stream.beginObject()
                stream.beginArray("transactions")
                // swift-format-ignore: ReplaceForEachWithForLoop
                // (`history` streams the journal: it is no Sequence)
                try history.forEach { entry in
                    let jws = sign.map { $0(entry.transaction) }
                    stream.beginObject()
                    entry.transaction.writeStoreKitMembers(
                        storeKit, price: entry.transaction.price.plainString, to: &stream)
                    for (key, value) in Self.rowWriters {
                        if let value = value(entry, jws) { stream.value(value, key) }
                    }
                    stream.end()
                }
                stream.end()
                stream.value(.array(history.pending.map(JSON.pending)), "pending")
                stream.value(.array(history.expiredRequests.map(JSON.pending)), "expiredRequests")
                stream.value(
                    history.verificationError.map(JSON.unverified) ?? .object([("result", .string("verified"))]),
                    "verification")
            },
            text: {
                // A first pass over the index alone measures the columns; the second prints.
                // PRICE is last, so it needs no width: the index that lays out the rest holds no price.
                let header = ["ID", "ORIGINAL", "PRODUCT", "STATE", "PURCHASED", "EXPIRES", "PRICE"]
                var widths: [Int] = []
                TerminalText.measure(header, into: &widths)
                var rows = 0
                try history.forEachSummary { summary, state, isFinished in
                    TerminalText.measure(
                        Self.cells(
                            id: summary.id, originalID: summary.originalID, productID: summary.productID, state: state,
                            reason: summary.reason, isFinished: isFinished, purchaseDate: summary.purchaseDate,
                            expirationDate: summary.expirationDate), into: &widths)
                    rows += 1
                }
                let pending = history.pending.map(Self.cells) + history.expiredRequests.map(Self.expiredCells)
                for row in pending { TerminalText.measure(row, into: &widths) }
                guard rows > 0 || !pending.isEmpty else { return [.line("No transactions.")] }
                return [
                    .streamedTable(widths: widths) { emit in
                        emit(header)
                        // swift-format-ignore: ReplaceForEachWithForLoop
                        try history.forEach { entry in
                            let transaction = entry.transaction
                            emit(
                                Self.cells(
                                    id: transaction.id, originalID: transaction.originalID,
                                    productID: transaction.productID, state: entry.state, reason: transaction.reason,
                                    isFinished: entry.isFinished, purchaseDate: transaction.purchaseDate,
                                    expirationDate: transaction.expirationDate) + [Self.priceCell(transaction)])
                        }
                        for row in pending { emit(row) }
                    }
                ]
            })
        if let error = history.verificationError {
            report.notes.append(
                "Note: every transaction arrives unverified (\(error.qualifiedName), simulated): "
                    + "VerificationResult.unverified; the app grants none of them.")
        }
        return report
    }

    private func delete(_ id: UInt64, in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let deletion = try session.deleteTransaction(id)
        if let request = deletion.request {
            return Report(
                json: .object([
                    ("id", .int(id)), ("result", .string("deleted")), ("productID", .string(request.productID)),
                    ("deletedIDs", .array([.int(id)])),
                ]),
                lines: [
                    "Deleted the \(request.reason == .askToBuy ? "Ask to Buy request" : "interrupted purchase") \(id) "
                        + "for \(request.productID)."
                ])
        }
        let named = deletion.transactions.first { $0.id == id }
        let productID = named?.productID ?? deletion.transactions.first?.productID ?? ""
        let others = deletion.transactions.count - 1
        let children =
            others == 0 ? "" : " and the \(others) later transaction\(others == 1 ? "" : "s") of its subscription"
        var lines = [
            "Deleted transaction \(id) (\(productID))\(children): "
                + "it is gone from the history, the entitlements and the app's record."
        ]
        if let renewal = deletion.renewedAgain.last {
            lines.append(
                "Auto-renew is on, so the App Store renewed the period again as transaction \(renewal.id); "
                    + "'iapsim cancel-subscription \(renewal.productID)' first to end the subscription instead.")
        }
        var members: [(String, JSON)] = [
            ("id", .int(id)), ("result", .string("deleted")), ("productID", .string(productID)),
            ("deletedIDs", .array(deletion.transactions.map { .int($0.id) })),
        ]
        if !deletion.renewedAgain.isEmpty {
            let storeKit = try session.storeKitContext()
            members.append(("renewedAgain", .array(deletion.renewedAgain.map { .transaction($0, storeKit) })))
        }
        return Report(json: .object(members), lines: lines)
    }

    /// A transaction's row, from its summary (measuring) or from the transaction (printing).
    private static func cells(
        id: UInt64, originalID: UInt64, productID: String, state: TransactionState, reason: Transaction.Reason,
        isFinished: Bool, purchaseDate: Date, expirationDate: Date?
    ) -> [String] {
        var text = state.rawValue
        if reason == .renewal { text += ", renewal" }
        if !isFinished { text += ", unfinished" }
        return [
            String(id), String(originalID), productID, text, ISO8601Date.string(purchaseDate),
            expirationDate.map(ISO8601Date.string) ?? "-",
        ]
    }

    /// What was charged, in the transaction's currency, and the offer it was charged under, as
    /// the page's Price and Offer columns show them: `0 USD (introductory offer, free trial)`.
    static func priceCell(_ transaction: Transaction) -> String {
        let price = "\(transaction.price.plainString) \(transaction.currency)"
        guard let type = transaction.offerType else { return price }
        var offer = [
            type == .code ? "offer code" : type == .winBack ? "win-back offer" : "\(type.rawValue) offer"
        ]
        if let id = transaction.offerID { offer[0] += " \(id)" }
        switch transaction.offerPaymentMode {
        case .freeTrial?: offer.append("free trial")
        case .payAsYouGo?: offer.append("pay as you go")
        case .payUpFront?: offer.append("pay up front")
        case nil: break
        }
        return "\(price) (\(offer.joined(separator: ", ")))"
    }

    private static func expiredCells(_ request: PendingPurchase) -> [String] {
        [
            String(request.id), "-", request.productID, "declined (askToBuy expired)",
            ISO8601Date.string(request.requestDate), request.expirationDate.map(ISO8601Date.string) ?? "-",
        ]
    }

    private static func cells(_ purchase: PendingPurchase) -> [String] {
        [
            String(purchase.id), "-", purchase.productID, "pending (\(purchase.reason.rawValue))",
            ISO8601Date.string(purchase.requestDate), purchase.expirationDate.map(ISO8601Date.string) ?? "-",
        ]
    }
}
