import Foundation
import IAPSimJSON

// A transaction's and a pending purchase's stored form (`PurchaseState+JSON` says how the
// state's JSON is written and read).

extension Transaction {
    /// The stored form: a journal line, a snapshot's entry, a notification's record. Internal
    /// to persistence; the public form is `storeKitJSON` (`Transaction+StoreKit.swift`), written
    /// on its own. Keys are StoreKit 2's field names, `id` first, so a line reads plainly.
    var json: JSONValue { json(price: price.plainString) }

    /// The same, with the price already spelled as `plainString` spells it: a listing spells
    /// each distinct price once (spelling a `Decimal` takes a microsecond).
    func json(price text: String) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .int(id)),
            ("originalID", .int(originalID)),
            ("productID", .string(productID)),
            ("productType", .string(productType.rawValue)),
            ("purchaseDate", .date(purchaseDate)),
            ("originalPurchaseDate", .date(originalPurchaseDate)),
            ("purchasedQuantity", .int(purchasedQuantity)),
            ("expirationDate", .date(expirationDate)),
            ("revocationDate", .date(revocationDate)),
            ("revocationReason", .optional(revocationReason?.rawValue)),
        ]
        members += [
            ("subscriptionGroupID", .optional(subscriptionGroupID)),
            ("isUpgraded", .bool(isUpgraded)),
            ("reason", .string(reason.rawValue)),
        ]
        if let offerType {
            members.append(("offerType", .string(offerType.rawValue)))
            members.append(("offerPaymentMode", .optional(offerPaymentMode?.rawValue)))
        }
        members += [
            ("price", .string(text)),
            ("currency", .string(currency)),
            ("storefrontCountryCode", .string(storefrontCountryCode)),
        ]
        for member in Self.storedTexts {
            if let text = member.write(self) { members.append((member.key.rawValue, .string(text))) }
        }
        if let commitmentInfo {
            members.append(
                (
                    "commitmentInfo",
                    .object([
                        ("billingPeriodNumber", .int(commitmentInfo.billingPeriodNumber)),
                        ("totalBillingPeriods", .int(commitmentInfo.totalBillingPeriods)),
                        ("expirationDate", .date(commitmentInfo.expirationDate)),
                        ("price", .string(commitmentInfo.price.plainString)),
                    ])
                ))
        }
        // Written only when shared, so the lines of bought transactions read as before schema 4.
        if ownershipType == .familyShared { members.append(("ownershipType", .string(ownershipType.rawValue))) }
        if let deletionDate { members.append(("deletionDate", .date(deletionDate))) }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        self.init(
            id: try r.required("id").uint64(), originalID: try r.required("originalID").uint64(),
            productID: try r.required("productID").string(),
            productType: try r.required("productType").raw(ProductType.self),
            purchaseDate: try r.required("purchaseDate").date(),
            originalPurchaseDate: try r.required("originalPurchaseDate").date(),
            purchasedQuantity: try r.optional("purchasedQuantity")?.positiveInt() ?? 1,
            expirationDate: try r.optional("expirationDate")?.date(),
            revocationDate: try r.optional("revocationDate")?.date(),
            revocationReason: try r.optional("revocationReason")?.raw(RevocationReason.self),
            subscriptionGroupID: try r.optional("subscriptionGroupID")?.string(),
            isUpgraded: try r.optional("isUpgraded")?.bool() ?? false,
            reason: try r.optional("reason")?.raw(Reason.self) ?? .purchase,
            price: try r.required("price").decimal(), currency: try r.required("currency").string(),
            storefrontCountryCode: try r.required("storefrontCountryCode").string())
        offerType = try r.optional("offerType")?.raw(OfferType.self)
        offerPaymentMode = try r.optional("offerPaymentMode")?.raw(SubscriptionOffer.PaymentMode.self)
        for member in Self.storedTexts {
            guard let value = try r.optional(member.key.rawValue) else { continue }
            guard case .string(let text) = value.value, member.read(&self, text) else {
                throw value.fail(member.expected())
            }
        }
        commitmentInfo = try r.optional("commitmentInfo").map { c throws(Reader.Failure) in
            CommitmentInfo(
                billingPeriodNumber: try c.required("billingPeriodNumber").positiveInt(),
                totalBillingPeriods: try c.required("totalBillingPeriods").positiveInt(),
                expirationDate: try c.required("expirationDate").date(), price: try c.required("price").decimal())
        }
        ownershipType = try r.optional("ownershipType")?.raw(OwnershipType.self) ?? .purchased
        deletionDate = try r.optional("deletionDate")?.date()
    }
}

extension JournalLine {
    /// The members of a stored transaction, named as its line names them, in the order of the
    /// fast reader's slots.
    ///
    /// The one list of them: the fast reader finds a member by these names, and a test holds
    /// them equal to the stored fields of `Transaction` and to the members its writer writes,
    /// so a field the writer gains and this list lacks fails that test (and the write check,
    /// which would see the field dropped on reading back).
    enum Key: String, CaseIterable {
        case id, originalID, productID, productType, purchaseDate, originalPurchaseDate, purchasedQuantity
        case expirationDate, revocationDate, revocationReason, revocationPercentage, revocationType
        case subscriptionGroupID
        case isUpgraded, reason, offerType, offerPaymentMode, offerID, offerPeriod, price, currency
        case storefrontCountryCode, appAccountToken, billingPlanType, commitmentInfo, ownershipType, deletionDate

        static let count = allCases.count

        /// Its token's place: its place in `allCases`. A Swift enum without payloads is stored
        /// as the number of its case in declaration order, which `allCases` follows (a test
        /// checks both), so finding it costs nothing on the path that reads every line.
        var slot: Int { Int(unsafeBitCast(self, to: UInt8.self)) }
    }
}

extension Transaction {
    /// An optional member that a line spells as one string and writes only when it is set.
    ///
    /// The writer above, the full reader and the journal's one pass (`JournalLine`) all take
    /// these members from `storedTexts` alone, so a field of this kind is added to the stored
    /// form by its `Key` and one entry here, and no reader can miss it.
    struct StoredText: Sendable {
        let key: JournalLine.Key
        /// What the text must be, for the error naming a member that does not read: spelled
        /// only then, since the table is built by every command that writes or reads a line.
        let expected: @Sendable () -> String
        /// The text to write; nil to leave the member out.
        let write: @Sendable (Transaction) -> String?
        /// Sets the field from `text`; false when the text is not a value of it.
        let read: @Sendable (inout Transaction, String) -> Bool
        /// Whether `text` is a value of the field, without setting it.
        let accepts: @Sendable (String) -> Bool

        init<Value>(
            _ key: JournalLine.Key, get: @escaping @Sendable (Transaction) -> Value?,
            set: @escaping @Sendable (inout Transaction, Value) -> Void,
            expected: @escaping @autoclosure @Sendable () -> String,
            when condition: @escaping @Sendable (Transaction) -> Bool = { _ in true },
            write: @escaping @Sendable (Value) -> String, read: @escaping @Sendable (String) -> Value?
        ) {
            // Closures rather than key paths: six key paths cost a buy 0.3 million instructions
            // to instantiate.
            self.key = key
            self.expected = expected
            self.write = { transaction in condition(transaction) ? get(transaction).map(write) : nil }
            self.read = { transaction, text in
                guard let value = read(text) else { return false }
                set(&transaction, value)
                return true
            }
            accepts = { read($0) != nil }
        }
    }

    /// `one of ["A", "B"]`, spelled by hand: interpolating the array goes through
    /// `debugPrint`'s dynamic casts, which cost every command that reads a transaction a
    /// third of a millisecond when the table is built.
    private static func oneOf<Value: RawRepresentable>(_ values: [Value]) -> String where Value.RawValue == String {
        "one of [" + values.map { "\"" + $0.rawValue + "\"" }.joined(separator: ", ") + "]"
    }

    /// The optional members spelled as one string, in the order a line writes them.
    static let storedTexts: [StoredText] = [
        // Written only for a prorated refund, so other lines read as before.
        StoredText(
            .revocationPercentage, get: { $0.revocationPercentage }, set: { $0.revocationPercentage = $1 },
            expected: "a decimal number as a string such as \"40\"",
            write: \.plainString, read: Decimal.init(plainDecimal:)),
        StoredText(
            .revocationType, get: { $0.revocationType }, set: { $0.revocationType = $1 },
            expected: oneOf(RevocationType.allCases),
            write: \.rawValue, read: RevocationType.init(rawValue:)),
        // An offer's details are kept only with its type.
        StoredText(
            .offerID, get: { $0.offerID }, set: { $0.offerID = $1 },
            expected: "a string", when: { $0.offerType != nil }, write: { $0 }, read: { $0 }),
        StoredText(
            .offerPeriod, get: { $0.offerPeriod }, set: { $0.offerPeriod = $1 },
            expected: "a subscription period such as P1M", when: { $0.offerType != nil },
            write: \.iso8601, read: SubscriptionPeriod.init(iso8601:)),
        StoredText(
            .appAccountToken, get: { $0.appAccountToken }, set: { $0.appAccountToken = $1 },
            expected: "a UUID such as \"7e3fb20b-4cdb-47cc-936d-99d65f608138\"",
            write: \.appleString, read: UUID.init(appleString:)),
        StoredText(
            .billingPlanType, get: { $0.billingPlanType }, set: { $0.billingPlanType = $1 },
            expected: oneOf(BillingPlanType.allCases),
            write: \.rawValue, read: BillingPlanType.init(rawValue:)),
    ]
}

extension PendingPurchase {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .int(id)), ("productID", .string(productID)), ("productType", .string(productType.rawValue)),
            ("purchasedQuantity", .int(purchasedQuantity)), ("reason", .string(reason.rawValue)),
            ("requestDate", .date(requestDate)),
        ]
        if let appAccountToken { members.append(("appAccountToken", .string(appAccountToken.appleString))) }
        return .object(members)
    }

    init(_ r: Reader) throws(Reader.Failure) {
        let quantity: Reader
        if let current = try r.optional("purchasedQuantity") {
            quantity = current
        } else {
            quantity = try r.required("quantity")
        }
        self.init(
            id: try r.required("id").uint64(), productID: try r.required("productID").string(),
            productType: try r.required("productType").raw(ProductType.self),
            // Written as `quantity` before 0.2.
            purchasedQuantity: try quantity.positiveInt(),
            reason: try r.required("reason").raw(Reason.self), requestDate: try r.required("requestDate").date())
        appAccountToken = try r.optional("appAccountToken")?.uuid()
    }
}
