import Foundation
import IAPSimJSON

/// A journal line read straight from its bytes.
///
/// Listing 100,000 transactions or rebuilding the index of a million reads every line, and
/// building a `JSONValue` tree for each costs more than the rest together. Lines as iapsim
/// writes them — one object of ASCII strings without escapes, whole numbers, dates in whole
/// seconds, and `commitmentInfo` the one object inside — are read here in one pass without
/// allocating. Any other line goes to `JSONValue` and `Reader`, which decide, so both ways
/// read a line the same or the fast one steps aside. Each line is read back as it is written
/// (`readBack(_:as:)`), so a line iapsim writes reads as the transaction it was spelled from.
struct JournalLine {
    /// Why a line is not a transaction, in the words of the full parser.
    enum Failure: Error, Equatable {
        case notJSON(String)
        case notTransaction(String)
    }

    /// The transaction on `line` (without its newline).
    static func transaction(_ line: UnsafeBufferPointer<UInt8>) throws(Failure) -> Transaction {
        if let fast = fast(line) { return fast }
        return try parsed(line)
    }

    /// The transaction on `line` as the one pass reads it, finding members by `names`; nil
    /// when the line is not in the form it reads, and the full parser decides.
    static func fast(
        _ line: UnsafeBufferPointer<UInt8>, names: KeyNames = .transaction, commitmentNames: KeyNames = .commitment
    ) -> Transaction? {
        withScanned(line, names, commitmentNames) { $0?.transaction() }
    }

    /// The index record of the transaction on `line`, which starts at `offset`; `key` gives
    /// the key of a product or group identifier from its bytes. Checks the line as
    /// `transaction` does, without building the transaction.
    static func record(
        _ line: UnsafeBufferPointer<UInt8>, offset: UInt64, key: (UnsafeBufferPointer<UInt8>) -> UInt32
    ) throws(Failure) -> TransactionIndex.Record {
        let fast = withScanned(line, .transaction, .commitment) { $0?.record(offset: offset, key: key) }
        if let fast { return fast }
        let transaction = try parsed(line)
        let productKey = Array(transaction.productID.utf8).withUnsafeBufferPointer(key)
        let groupKey = transaction.subscriptionGroupID.map { Array($0.utf8).withUnsafeBufferPointer(key) }
        return TransactionIndex.Record(transaction, offset: offset, productKey: productKey, groupKey: groupKey)
    }

    static func parsed(_ line: UnsafeBufferPointer<UInt8>) throws(Failure) -> Transaction {
        do {
            return try Transaction(try Reader(try JSONValue.parse(Array(line)), at: ""))
        } catch let error as JSONValue.SyntaxError {
            throw .notJSON(error.message)
        } catch {
            throw .notTransaction((error as? Reader.Failure)?.message ?? "\(error)")
        }
    }

    // MARK: The one pass

    /// A member's value: its kind and, for a string (without quotes), a number or an object,
    /// its bytes.
    private struct Token {
        enum Kind: UInt8 { case absent, string, number, yes, no, null, object }
        var kind: Kind = .absent
        var start: Int32 = 0
        var end: Int32 = 0
    }

    private let b: UnsafeBufferPointer<UInt8>
    private let tokens: UnsafeMutableBufferPointer<Token>

    /// Calls `body` with the line scanned, or nil when it is not in the simple form.
    private static func withScanned<Result>(
        _ line: UnsafeBufferPointer<UInt8>, _ names: KeyNames, _ commitmentNames: KeyNames,
        _ body: (JournalLine?) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: Token.self, capacity: slotCount) { tokens in
            tokens.initialize(repeating: Token())
            let scanned = JournalLine(b: line, tokens: tokens)
            return body(line.count < Int32.max && scanned.scan(names, commitmentNames) ? scanned : nil)
        }
    }

    /// Reads the object's members into `tokens`; false for anything but the simple form.
    private func scan(_ names: KeyNames, _ commitmentNames: KeyNames) -> Bool {
        var i = 0
        func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0D || b[i] == 0x0A { i += 1 } }
        /// A string's bytes; nil with an escape, a control character or a non-ASCII byte.
        func string() -> Range<Int>? {
            i += 1
            let start = i
            // Eight bytes a step while none is a quote, a backslash, a control character or
            // not ASCII; the loop below reads the word that holds one.
            if let base = b.baseAddress {
                let raw = UnsafeRawPointer(base)
                while i + 8 <= b.count {
                    let word = ByteWord(raw, at: i)
                    guard word.isASCII, !word.hasByte(below: 0x20), !word.has(0x22), !word.has(0x5C) else { break }
                    i += 8
                }
            }
            while i < b.count {
                let byte = b[i]
                if byte == 0x22 {
                    i += 1
                    return start..<i - 1
                }
                if byte == 0x5C || byte < 0x20 || byte >= 0x80 { return nil }
                i += 1
            }
            return nil
        }
        func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard i + count <= b.count, memcmp(word.utf8Start, b.baseAddress! + i, count) == 0 else { return false }
            i += count
            return true
        }
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return false }
        i += 1
        // Where `commitmentInfo`'s object starts while its members are read, else -1. One
        // loop for both levels, without recursion, so that all of it is inlined here.
        var inner = -1
        while true {
            skipSpace()
            guard i < b.count, b[i] == 0x22, let name = string() else { return false }
            let nameBytes = UnsafeBufferPointer(rebasing: b[name])
            let slot = inner < 0 ? names.slot(of: nameBytes) : commitmentNames.slot(of: nameBytes)
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return false }
            i += 1
            skipSpace()
            guard i < b.count else { return false }
            var token = Token()
            let start = i
            switch b[i] {
            case 0x22:
                guard let range = string() else { return false }
                token = Token(kind: .string, start: Int32(range.lowerBound), end: Int32(range.upperBound))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                // Exactly what JSONValue takes for a number.
                let (end, problem) = JSONValue.scanNumber(b, from: i)
                guard problem == nil else { return false }
                i = end
                token = Token(kind: .number, start: Int32(start), end: Int32(i))
            case UInt8(ascii: "t"):
                guard literal("true") else { return false }
                token.kind = .yes
            case UInt8(ascii: "f"):
                guard literal("false") else { return false }
                token.kind = .no
            case UInt8(ascii: "n"):
                guard literal("null") else { return false }
                token.kind = .null
            case UInt8(ascii: "{"):
                // `commitmentInfo`'s members go to their own slots, cleared first: the last of
                // a repeated member counts whole. Its token is set where the object ends.
                guard inner < 0, slot == Key.commitmentInfo.slot else { return false }
                for slot in commitmentNames.slots { tokens[slot] = Token() }
                inner = i
                i += 1
                continue
            default:
                return false  // other nested values, and anything malformed
            }
            // A repeated key: the last one counts, as `JSONValue`'s subscript reads it.
            if let slot { tokens[slot] = token }
            // A `,`, or a `}` that ends `commitmentInfo` (then a `,` or `}` follows) or the line.
            while true {
                skipSpace()
                guard i < b.count else { return false }
                if b[i] == UInt8(ascii: ",") {
                    i += 1
                    break
                }
                guard b[i] == UInt8(ascii: "}") else { return false }
                i += 1
                guard inner >= 0 else {
                    skipSpace()
                    return i == b.count
                }
                tokens[Key.commitmentInfo.slot] = Token(kind: .object, start: Int32(inner), end: Int32(i))
                inner = -1
            }
        }
    }

    private func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
        range.count == word.utf8CodeUnitCount
            && memcmp(word.utf8Start, b.baseAddress! + range.lowerBound, range.count) == 0
    }

    // MARK: Values, as `Reader` reads them

    /// A member present and not null, as `Reader.optional` sees it.
    private func present(_ key: Key) -> Token? { present(slot: key.slot) }

    private func present(inCommitment key: CommitmentKey) -> Token? { present(slot: key.slot) }

    private func present(slot: Int) -> Token? {
        let token = tokens[slot]
        return token.kind == .absent || token.kind == .null ? nil : token
    }

    private func range(_ token: Token) -> Range<Int> { Int(token.start)..<Int(token.end) }

    private func string(_ token: Token) -> Range<Int>? { token.kind == .string ? range(token) : nil }

    private func text(_ token: Token) -> String? {
        string(token).map { String(decoding: UnsafeBufferPointer(rebasing: b[$0]), as: UTF8.self) }
    }

    /// `UInt64(text)` for plain digits.
    private func whole(_ token: Token) -> UInt64? {
        guard token.kind == .number, token.end - token.start <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in b[range(token)] {
            guard byte &- 0x30 < 10 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(byte &- 0x30))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` in years 0001 to 9999, as `ISO8601Date.date` reads it.
    private func date(_ token: Token) -> Date? {
        guard token.kind == .string, token.end - token.start == 20 else { return nil }
        let s = Int(token.start)
        func number(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in b[s + from..<s + from + count] {
                guard byte &- 0x30 < 10 else { return nil }
                value = value * 10 + Int(byte &- 0x30)
            }
            return value
        }
        guard b[s + 4] == 0x2D, b[s + 7] == 0x2D, b[s + 10] == UInt8(ascii: "T"), b[s + 13] == 0x3A,
            b[s + 16] == 0x3A, b[s + 19] == UInt8(ascii: "Z"), let year = number(0, 4), year >= 1,
            let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2), hour < 24,
            let minute = number(14, 2), minute < 60, let second = number(17, 2), second < 60
        else { return nil }
        let civil = GregorianDate(year: year, month: month, day: day, secondOfDay: hour * 3600 + minute * 60 + second)
        guard civil.isValid, let seconds = civil.secondsSince1970 else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// `Decimal(plainDecimal:)`'s rules: digits, at most one `.` between digits, 30 bytes at most.
    private func isPlainDecimal(_ token: Token) -> Bool {
        guard let range = string(token), !range.isEmpty, range.count <= 30 else { return false }
        var before = 0
        var after = 0
        var point = false
        for byte in b[range] {
            if byte &- 0x30 < 10 {
                if point { after += 1 } else { before += 1 }
            } else if byte == UInt8(ascii: "."), !point {
                point = true
            } else {
                return false
            }
        }
        return before > 0 && (!point || after > 0)
    }

    /// An optional member: `.some(nil)` when absent or null, nil when present and unreadable.
    private func optional<T>(_ key: Key, _ read: (Token) -> T?) -> T?? {
        guard let token = present(key) else { return .some(nil) }
        return read(token).map { .some($0) }
    }

    private func productType(_ token: Token) -> ProductType? {
        guard let range = string(token) else { return nil }
        if equals(range, "consumable") { return .consumable }
        if equals(range, "nonConsumable") { return .nonConsumable }
        if equals(range, "autoRenewable") { return .autoRenewable }
        if equals(range, "nonRenewable") { return .nonRenewable }
        return nil
    }

    private func reason(_ token: Token) -> Transaction.Reason? {
        guard let range = string(token) else { return nil }
        return equals(range, "purchase") ? .purchase : equals(range, "renewal") ? .renewal : nil
    }

    private func revocationReason(_ token: Token) -> Transaction.RevocationReason? {
        guard let range = string(token) else { return nil }
        return equals(range, "developerIssue") ? .developerIssue : equals(range, "other") ? .other : nil
    }

    private func flag(_ token: Token) -> Bool? { token.kind == .yes ? true : token.kind == .no ? false : nil }

    private func quantity(_ token: Token) -> Int? {
        whole(token).flatMap { $0 >= 1 && $0 <= UInt64(Int.max) ? Int($0) : nil }
    }

    /// `commitmentInfo`'s members as `Transaction(Reader)` reads them, the price still text.
    private func commitment(_ token: Token) -> (number: Int, total: Int, expirationDate: Date, price: Token)? {
        guard token.kind == .object, let number = present(inCommitment: .billingPeriodNumber).flatMap(quantity),
            let total = present(inCommitment: .totalBillingPeriods).flatMap(quantity),
            let expirationDate = present(inCommitment: .expirationDate).flatMap(date),
            let price = present(inCommitment: .price), isPlainDecimal(price)
        else { return nil }
        return (number, total, expirationDate, price)
    }

    /// The fields both reads check, or nil when one does not read.
    private func common() -> (
        id: UInt64, originalID: UInt64, productType: ProductType, purchaseDate: Date, expirationDate: Date?,
        revocationDate: Date?, isUpgraded: Bool, reason: Transaction.Reason, deletionDate: Date?,
        ownershipType: Transaction.OwnershipType
    )? {
        guard let idToken = present(.id), let id = whole(idToken),
            let originalToken = present(.originalID), let originalID = whole(originalToken),
            let product = present(.productID), string(product) != nil,
            let typeToken = present(.productType), let productType = productType(typeToken),
            let purchaseToken = present(.purchaseDate), let purchaseDate = date(purchaseToken),
            let originalDate = present(.originalPurchaseDate), date(originalDate) != nil,
            optional(.purchasedQuantity, quantity) != nil,
            let expirationDate = optional(.expirationDate, date), let revocationDate = optional(.revocationDate, date),
            optional(.revocationReason, revocationReason) != nil,
            optional(.subscriptionGroupID, string) != nil,
            let isUpgraded = optional(.isUpgraded, flag), let reason = optional(.reason, reason),
            let price = present(.price), isPlainDecimal(price),
            let currency = present(.currency), string(currency) != nil,
            let storefront = present(.storefrontCountryCode), string(storefront) != nil,
            optional(.offerType, { text($0).flatMap(Transaction.OfferType.init(rawValue:)) }) != nil,
            optional(.offerPaymentMode, { text($0).flatMap(SubscriptionOffer.PaymentMode.init(rawValue:)) }) != nil,
            optional(.commitmentInfo, commitment) != nil,
            let ownership = optional(.ownershipType, { text($0).flatMap(Transaction.OwnershipType.init(rawValue:)) }),
            let deletionDate = optional(.deletionDate, date),
            storedTexts({ member, text in member.accepts(text) })
        else { return nil }
        return (
            id, originalID, productType, purchaseDate, expirationDate, revocationDate, isUpgraded ?? false,
            reason ?? .purchase, deletionDate, ownership ?? .purchased
        )
    }

    /// Hands each member of `Transaction.storedTexts` the line has to `read` with its text;
    /// false when one is not a string or `read` refuses it.
    private func storedTexts(_ read: (Transaction.StoredText, String) -> Bool) -> Bool {
        // Their slots, plain numbers: a line without these members (most lines) costs a look
        // at each token and copies no entry (an entry's closures would be retained).
        for (index, slot) in Self.storedTextSlots.enumerated() {
            guard let token = present(slot: slot) else { continue }
            guard let text = text(token), read(Transaction.storedTexts[index], text) else { return false }
        }
        return true
    }

    /// The slots of `Transaction.storedTexts`' members, in its order.
    private static let storedTextSlots = Transaction.storedTexts.map(\.key.slot)

    private func transaction() -> Transaction? {
        guard let fields = common(), let productID = present(.productID).flatMap(text),
            let originalPurchaseDate = present(.originalPurchaseDate).flatMap(date),
            let quantity = optional(.purchasedQuantity, quantity), let groupID = optional(.subscriptionGroupID, text),
            let price = present(.price).flatMap(text).flatMap(Decimal.init(plainDecimal:)),
            let currency = present(.currency).flatMap(text),
            let storefront = present(.storefrontCountryCode).flatMap(text)
        else { return nil }
        var transaction = Transaction(
            id: fields.id, originalID: fields.originalID, productID: productID, productType: fields.productType,
            purchaseDate: fields.purchaseDate, originalPurchaseDate: originalPurchaseDate,
            purchasedQuantity: quantity ?? 1, expirationDate: fields.expirationDate,
            revocationDate: fields.revocationDate,
            revocationReason: present(.revocationReason).flatMap(revocationReason), subscriptionGroupID: groupID,
            isUpgraded: fields.isUpgraded, reason: fields.reason, price: price, currency: currency,
            storefrontCountryCode: storefront)
        transaction.offerType = present(.offerType).flatMap(text).flatMap(Transaction.OfferType.init(rawValue:))
        transaction.offerPaymentMode = present(.offerPaymentMode).flatMap(text).flatMap(
            SubscriptionOffer.PaymentMode.init(rawValue:))
        if let commitment = present(.commitmentInfo).flatMap(commitment) {
            guard let price = text(commitment.price).flatMap(Decimal.init(plainDecimal:)) else { return nil }
            transaction.commitmentInfo = Transaction.CommitmentInfo(
                billingPeriodNumber: commitment.number, totalBillingPeriods: commitment.total,
                expirationDate: commitment.expirationDate, price: price)
        }
        transaction.ownershipType = fields.ownershipType
        transaction.deletionDate = fields.deletionDate
        guard storedTexts({ member, text in member.read(&transaction, text) }) else { return nil }
        return transaction
    }

    private func record(offset: UInt64, key: (UnsafeBufferPointer<UInt8>) -> UInt32) -> TransactionIndex.Record? {
        guard let fields = common(), let product = present(.productID).flatMap(string) else { return nil }
        let group = present(.subscriptionGroupID).flatMap(string)
        return TransactionIndex.Record(
            id: fields.id, originalID: fields.originalID, offset: offset, purchaseDate: fields.purchaseDate,
            expirationDate: fields.expirationDate, revocationDate: fields.revocationDate,
            productKey: key(UnsafeBufferPointer(rebasing: b[product])),
            groupKey: group.map { key(UnsafeBufferPointer(rebasing: b[$0])) }, productType: fields.productType,
            isUpgraded: fields.isUpgraded, isRenewal: fields.reason == .renewal, isDeleted: fields.deletionDate != nil,
            isFamilyShared: fields.ownershipType == .familyShared)
    }
}
