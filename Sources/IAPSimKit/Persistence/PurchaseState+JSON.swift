import Foundation
import IAPSimJSON

// The state's JSON form, by hand: `purchases.json` (indented) and journal lines (compact).
// Keys are written in a fixed order; reading accepts any order, ignores unknown keys, and
// treats absent optional keys as nil, so files from iapsim's schema 1 (written by
// JSONEncoder with sorted keys) read as well.

extension SimulationState {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            // Each set key's value as text, by key: the form `settings set` takes.
            (
                "settings",
                .object(
                    settings.keys.sorted { $0.rawValue < $1.rawValue }.map {
                        ($0.rawValue, .string(settings.values.text(for: $0)))
                    })
            )
        ]
        if let clock {
            members.append(
                (
                    "clock",
                    .object([
                        ("base", .string(String(clock.base.timeIntervalSince1970))),
                        ("anchor", .string(String(clock.anchor.timeIntervalSince1970))),
                        ("frozen", .bool(clock.frozen)),
                        ("reads", .date(clock.base)),
                    ])
                ))
        }
        members += [
            ("pending", .array(pending.map(\.json))),
            ("expiredRequests", .array(expiredRequests.map(\.json))),
            ("undeliveredTransactionIDs", .array(undeliveredTransactionIDs.map { .int($0) })),
            ("unfinishedTransactionIDs", .array(unfinishedTransactionIDs.map { .int($0) })),
            ("renewals", .array(renewals.map(\.json))),
            ("refundRequests", .array(refundRequests.map(\.json))),
        ]
        if !ungrantedTransactionIDs.isEmpty {
            members.append(("ungrantedTransactionIDs", .array(ungrantedTransactionIDs.map { .int($0) })))
        }
        if !usedOfferNonces.isEmpty {
            members.append(
                (
                    "usedOfferNonces",
                    .array(
                        usedOfferNonces.map {
                            .object([("nonce", .string($0.nonce)), ("timestamp", .number(String($0.timestamp)))])
                        })
                ))
        }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init()
        // Each setting is checked as it is read: an unknown key or a value `settings set` would
        // refuse makes the file corrupt, never a silent default.
        let texts = try r.optional("settings")?.dictionary { value throws(Reader.Failure) in try value.string() }
        for (name, value) in texts ?? [:] {
            guard let key = SettingKey(rawValue: name) else {
                throw Reader.Failure(message: "simulation.settings.\(name): not a setting iapsim knows")
            }
            do {
                try settings.set(key, text: value)
            } catch {
                // Before each API took only the errors Apple allows it, any error was accepted
                // for any API: a state from then keeps its error until it is set again.
                if StoreKitTestAPI(settingKey: key) != nil, let legacy = SimulatedError.named(value) {
                    settings.set(key) { $0.setSimulatedError(legacy, for: key) }
                    continue
                }
                throw Reader.Failure(message: "simulation.settings.\(name): \(error.errorDescription ?? "invalid")")
            }
        }
        clock = try r.optional("clock").map { clock throws(Reader.Failure) in
            // Seconds since 1970 as text, to keep the fraction a date string would drop.
            func seconds(_ key: String) throws(Reader.Failure) -> Date {
                let field = try clock.required(key)
                guard let value = Double(try field.string()) else { return try field.date() }
                let date = Date(timeIntervalSince1970: value)
                guard ISO8601Date.isRepresentable(date) else {
                    throw Reader.Failure(message: "simulation.clock.\(key): \(value) is not a time the state holds")
                }
                return date
            }
            return SimulatedClock(
                base: try seconds("base"), anchor: try seconds("anchor"), frozen: try clock.required("frozen").bool())
        }
        pending = try r.optional("pending")?.array { item throws(Reader.Failure) in try PendingPurchase(item) } ?? []
        expiredRequests =
            try r.optional("expiredRequests")?.array { item throws(Reader.Failure) in try PendingPurchase(item) } ?? []
        undeliveredTransactionIDs =
            try r.optional("undeliveredTransactionIDs")?.array { id throws(Reader.Failure) in try id.uint64() } ?? []
        unfinishedTransactionIDs =
            try r.optional("unfinishedTransactionIDs")?.array { id throws(Reader.Failure) in try id.uint64() } ?? []
        ungrantedTransactionIDs =
            try r.optional("ungrantedTransactionIDs")?.array { id throws(Reader.Failure) in try id.uint64() } ?? []
        renewals = try r.optional("renewals")?.array { item throws(Reader.Failure) in try RenewalInfo(item) } ?? []
        refundRequests =
            try r.optional("refundRequests")?.array { item throws(Reader.Failure) in try RefundRequest(item) } ?? []
        usedOfferNonces =
            try r.optional("usedOfferNonces")?.array { item throws(Reader.Failure) in
                let timestamp = try item.required("timestamp")
                guard case .number(let text) = timestamp.value, let milliseconds = Int64(text) else {
                    throw Reader.Failure(message: "\(timestamp.place.text): expected milliseconds since 1970")
                }
                return OfferNonce(nonce: try item.required("nonce").string(), timestamp: milliseconds)
            } ?? []
    }
}

extension RefundRequest {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("transactionID", .int(transactionID)), ("productID", .string(productID)),
            ("requestDate", .date(requestDate)),
        ]
        if let reason { members.append(("reason", .string(reason.rawValue))) }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            transactionID: try r.required("transactionID").uint64(), productID: try r.required("productID").string(),
            requestDate: try r.required("requestDate").date(), reason: try r.optional("reason")?.raw(Reason.self))
    }
}

extension PurchaseState {
    /// The snapshot: the app's record first, as the user-visible record of what was bought.
    var json: JSONValue {
        var accountMembers: [(String, JSONValue)] = [("nextTransactionID", .int(account.nextTransactionID))]
        if account.customerNumber != 0 { accountMembers.append(("customerNumber", .int(account.customerNumber))) }
        accountMembers += [
            ("transactionCount", .int(account.transactionCount)), ("journalLength", .int(account.journalLength)),
        ]
        if let id = account.appTransactionID { accountMembers.append(("appTransactionID", .string(id))) }
        if let date = account.firstUseDate { accountMembers.append(("firstUseDate", .date(date))) }
        accountMembers.append(("current", .array(account.current.map(\.json))))
        let appRecord = JSONValue.object([
            ("purchasedProductIdentifiers", .array(app.purchasedProductIdentifiers.map(JSONValue.string))),
            ("consumables", .object(app.consumables.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
        ])
        return .object([
            ("schemaVersion", .int(schemaVersion)),
            ("app", appRecord),
            ("account", .object(accountMembers)),
            ("simulation", simulation.json),
            (
                "notifications",
                .object([("count", .int(outbox.count)), ("journalLength", .int(outbox.journalLength))])
            ),
        ])
    }

    init(_ r: Reader) throws(Reader.Failure) {
        let app = try r.required("app")
        let account = try r.required("account")
        var record = Account(nextTransactionID: try account.required("nextTransactionID").uint64())
        if let legacy = try account.optional("transactions") {
            // Schema 1: the whole history inline. It moves to the journal on the next write.
            for item in try legacy.array({ item throws(Reader.Failure) in try Transaction(item) }) {
                do {
                    try record.record(item, isNew: true)
                } catch {
                    throw Reader.Failure(message: error.detail)
                }
            }
        } else {
            record.transactionCount = try account.required("transactionCount").nonNegativeInt()
            record.journalLength = try account.required("journalLength").uint64()
            record.appTransactionID = try account.optional("appTransactionID")?.string()
            record.firstUseDate = try account.optional("firstUseDate")?.date()
            record.customerNumber = try account.optional("customerNumber")?.uint64() ?? 0
            record.restore(
                current: try account.required("current").array { item throws(Reader.Failure) in try Transaction(item) })
        }
        self.init(
            account: record,
            app: AppRecord(
                purchasedProductIdentifiers: try app.required("purchasedProductIdentifiers").array {
                    id throws(Reader.Failure) in try id.string()
                },
                consumables: try app.required("consumables").dictionary { count throws(Reader.Failure) in
                    try count.nonNegativeInt()
                }),
            simulation: try r.optional("simulation").map { simulation throws(Reader.Failure) in
                try SimulationState(simulation)
            } ?? SimulationState())
        // A revoked chain is stored as ended; its latest transaction says it was revoked.
        for index in simulation.renewals.indices where simulation.renewals[index].phase == .expired {
            if self.account.chainLatest(simulation.renewals[index].originalID)?.revocationDate != nil {
                simulation.renewals[index].phase = .revoked
            }
        }
        schemaVersion = try r.required("schemaVersion").int()
        if schemaVersion < 3 {
            // Before schema 3 every repeated Ask to Buy request was a pending purchase of its
            // own; StoreKit keeps one per product.
            simulation.pending = PendingPurchase.consolidated(simulation.pending)
        }
        if schemaVersion < 4 {
            // Schema 3 → 4 (refund requests, price increases): a file before 4 has neither, and
            // reads as having none; nothing it holds changes meaning.
            simulation.refundRequests = []
        }
        if let notifications = try r.optional("notifications") {
            outbox.count = try notifications.required("count").nonNegativeInt()
            outbox.journalLength = try notifications.required("journalLength").uint64()
        }
    }
}
