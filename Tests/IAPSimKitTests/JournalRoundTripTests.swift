import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// A journal line reads back as the transaction written, through the one pass: every shape of
/// line iapsim writes is taken by it (a decline fails here, not only a wrong read), its keys
/// are the transaction's stored fields and the writer's members, and the write check catches a
/// field the one pass drops.
@Suite struct JournalRoundTripTests {
    /// Half a second past `Support.fixedDate`: the line keeps whole seconds.
    private static let date = Support.fixedDate + 0.5

    private static func transaction(
        _ id: UInt64, _ productID: String, _ type: ProductType, change: (inout Transaction) -> Void = { _ in }
    ) -> Transaction {
        var transaction = Transaction(
            id: id, originalID: id, productID: productID, productType: type, purchaseDate: date,
            originalPurchaseDate: date, price: Decimal(string: "2.99")!, currency: "USD",
            storefrontCountryCode: "USA")
        if type == .autoRenewable {
            transaction.subscriptionGroupID = "G1"
            transaction.expirationDate = date + 30 * 86_400
        }
        change(&transaction)
        return transaction
    }

    /// Every field set: what the writer writes at most.
    static let complete = transaction(9, "fx.plus", .autoRenewable) {
        $0.originalID = 3
        $0.originalPurchaseDate = date - 86_400.25
        $0.purchasedQuantity = 2
        $0.revocationDate = date + 3_600.9
        $0.revocationReason = .other
        $0.revocationPercentage = Decimal(string: "67.932")!
        $0.revocationType = .proratedRefund
        $0.isUpgraded = true
        $0.reason = .renewal
        $0.offerType = .promotional
        $0.offerPaymentMode = .payAsYouGo
        $0.offerID = "pro.loyal"
        $0.offerPeriod = SubscriptionPeriod(value: 1, unit: .month)
        $0.billingPlanType = .monthly
        $0.commitmentInfo = Transaction.CommitmentInfo(
            billingPeriodNumber: 2, totalBillingPeriods: 12, expirationDate: date + 300 * 86_400.5,
            price: Decimal(string: "23.88")!)
        $0.appAccountToken = UUID(uuidString: "0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e")
        $0.ownershipType = .familyShared
        $0.deletionDate = date + 7_200
    }

    /// One of each shape iapsim writes.
    static let shapes: [Transaction] = [
        transaction(1, "fx.coins", .consumable) { $0.purchasedQuantity = 3 },
        transaction(2, "fx.levels", .nonConsumable),
        transaction(3, "fx.season", .nonRenewable) { $0.expirationDate = date + 90 * 86_400 },
        transaction(4, "fx.plus", .autoRenewable),
        transaction(5, "fx.plus", .autoRenewable) {
            $0.originalID = 4
            $0.reason = .renewal
        },
        transaction(6, "fx.plus", .autoRenewable) {
            $0.offerType = .introductory
            $0.offerPaymentMode = .freeTrial
            $0.offerPeriod = SubscriptionPeriod(value: 1, unit: .week)
            $0.price = 0
        },
        transaction(7, "fx.plus", .autoRenewable) {
            $0.offerType = .code
            $0.offerPaymentMode = .payUpFront
            $0.offerID = "winter"
            $0.offerPeriod = SubscriptionPeriod(value: 3, unit: .month)
        },
        transaction(8, "fx.plus", .autoRenewable) {
            $0.offerType = .winBack
            $0.offerPaymentMode = .payAsYouGo
            $0.offerID = "come.back"
        },
        transaction(10, "fx.levels", .nonConsumable) {
            $0.revocationDate = date + 60
            $0.revocationReason = .developerIssue
        },
        transaction(11, "fx.coins", .consumable) {
            $0.revocationDate = date + 60
            $0.revocationReason = .other
            $0.revocationPercentage = Decimal(string: "40")!
            $0.revocationType = .proratedRefund
        },
        transaction(12, "fx.plus", .autoRenewable) {
            $0.price = Decimal(string: "1.99")!
            $0.billingPlanType = .monthly
            $0.commitmentInfo = Transaction.CommitmentInfo(
                billingPeriodNumber: 1, totalBillingPeriods: 12, expirationDate: date + 365 * 86_400,
                price: Decimal(string: "23.88")!)
        },
        transaction(13, "fx.levels", .nonConsumable) { $0.ownershipType = .familyShared },
        transaction(14, "fx.coins", .consumable) {
            $0.appAccountToken = UUID(uuidString: "0E8F4F4A-5A3B-4C8E-9D1E-2F3A4B5C6D7E")
        },
        transaction(15, "fx.plus", .autoRenewable) { $0.isUpgraded = true },
        transaction(16, "fx.levels", .nonConsumable) { $0.deletionDate = date + 86_400 },
        complete,
    ]

    private static func line(_ transaction: Transaction) -> [UInt8] {
        var bytes: [UInt8] = []
        transaction.json.write(to: &bytes, indent: nil)  // as `StateStore.write` spells it
        return bytes
    }

    @Test(arguments: shapes)
    func everyShapeReadsBackThroughTheOnePass(_ transaction: Transaction) throws {
        let bytes = Self.line(transaction)
        let onePass = bytes.withUnsafeBufferPointer { JournalLine.fast($0) }
        let read = try #require(onePass, "the one pass declines \(String(decoding: bytes, as: UTF8.self))")
        #expect(read == transaction.asStored)
        #expect(try bytes.withUnsafeBufferPointer { try JournalLine.parsed($0) } == read)
        #expect(bytes.withUnsafeBufferPointer { JournalLine.readBack($0, as: transaction) } == nil)
    }

    /// The one pass steps over a string eight bytes at a time: a byte it must not take as it is
    /// (an escape — the writer escapes control characters and DEL — or a byte of a non-ASCII
    /// character) is found at every place in the word, the line declined, and the full parser
    /// reads it.
    @Test(arguments: ["\"", "\\", "\n", "\u{1}", "é", "\u{7F}"])
    func aByteTheOnePassCannotTakeIsFoundWhereverItSits(special: String) throws {
        for position in 0..<20 {
            let productID =
                String(repeating: "a", count: position) + special + String(repeating: "b", count: 19 - position)
            let transaction = Self.transaction(1, productID, .consumable)
            let bytes = Self.line(transaction)
            let onePass = bytes.withUnsafeBufferPointer { JournalLine.fast($0) }
            let parsed = try bytes.withUnsafeBufferPointer { try JournalLine.parsed($0) }
            #expect(parsed.productID == productID, "at \(position)")
            #expect(onePass == nil, "at \(position)")
        }
    }

    /// So that a reader dropping any field reads `complete` otherwise: no field is nil, or
    /// what a reader puts where the member is missing.
    @Test func theCompleteShapeSetsEveryStoredField() {
        let unset = Transaction(
            id: 0, originalID: 0, productID: "", productType: .consumable, purchaseDate: .distantPast,
            originalPurchaseDate: .distantPast, price: 0, currency: "", storefrontCountryCode: "")
        for (field, unsetField) in zip(Mirror(reflecting: Self.complete).children, Mirror(reflecting: unset).children) {
            #expect(
                "\(field.value)" != "\(unsetField.value)",
                "\(field.label ?? "?") is unset: set it in `complete`, so the round trip covers it")
        }
    }

    /// The members `json` writes for `complete`, and those of its `commitmentInfo`.
    private func writtenMembers() throws -> (transaction: [String], commitment: [String]) {
        guard case .object(let members) = Self.complete.json,
            case .object(let commitment) = members.first(where: { $0.0 == "commitmentInfo" })?.1
        else { throw Reader.Failure(message: "no commitmentInfo written") }
        return (members.map(\.0), commitment.map(\.0))
    }

    @Test func theKeysAreTheStoredFieldsAndTheWrittenMembers() throws {
        let written = try writtenMembers()
        let keys = JournalLine.Key.allCases.map(\.rawValue)
        #expect(keys.sorted() == written.transaction.sorted())
        #expect(keys.sorted() == Mirror(reflecting: Self.complete).children.compactMap(\.label).sorted())
        let commitmentKeys = JournalLine.CommitmentKey.allCases.map(\.rawValue)
        #expect(commitmentKeys.sorted() == written.commitment.sorted())
        let info = try #require(Self.complete.commitmentInfo)
        #expect(commitmentKeys.sorted() == Mirror(reflecting: info).children.compactMap(\.label).sorted())
    }

    @Test func eachKeysSlotIsItsPlaceInAllCasesAndItsNameFindsIt() {
        #expect(JournalLine.Key.allCases.map(\.slot) == Array(0..<JournalLine.Key.count))
        #expect(
            JournalLine.CommitmentKey.allCases.map(\.slot)
                == Array(JournalLine.Key.count..<JournalLine.slotCount))
        func slot(_ name: String, in names: JournalLine.KeyNames) -> Int? {
            Array(name.utf8).withUnsafeBufferPointer { names.slot(of: $0) }
        }
        for key in JournalLine.Key.allCases { #expect(slot(key.rawValue, in: .transaction) == key.slot) }
        for key in JournalLine.CommitmentKey.allCases { #expect(slot(key.rawValue, in: .commitment) == key.slot) }
        for name in ["", "i", "ids", "Id", "billingPeriodNumber", "commitmentInfo "] {
            #expect(slot(name, in: .transaction) == nil, "\(name)")
        }
    }

    /// Names that differ only in their middle, as a field added beside another often does
    /// (`revocationDate`, `revocationType`), each find their own slot: the table is built, and
    /// no name finds another's.
    @Test func namesAlikeButInTheirMiddleFindTheirOwnSlots() {
        let names = [
            "revocationDate", "revocationType", "revocationReasonX", "revocationSeasonX", "a", "b", "ab", "ba", "abc",
            "acb", "abcd", "abdc", "commitmentExpiresDateOfTheWholePlan", "commitmentExpiresDateOfThatWholePlan",
        ]
        let table = JournalLine.KeyNames(names, base: 0)
        for (index, name) in names.enumerated() {
            #expect(Array(name.utf8).withUnsafeBufferPointer { table.slot(of: $0) } == index, "\(name)")
        }
    }

    /// Where a key is left out of the one pass's names, as when a field is added to the writer
    /// and not to `Key`: the one pass declines the line (which `everyShapeReadsBackThroughTheOnePass` fails) or the
    /// write check names the field it lost.
    @Test(
        arguments: JournalLine.Key.allCases.map(\.rawValue)
            + JournalLine.CommitmentKey.allCases.map { "." + $0.rawValue })
    func aFieldTheOnePassDropsIsCaught(_ dropped: String) throws {
        let names = JournalLine.KeyNames(JournalLine.Key.allCases.map(\.rawValue), base: 0, leavingOut: dropped)
        let commitmentNames = JournalLine.KeyNames(
            JournalLine.CommitmentKey.allCases.map(\.rawValue), base: JournalLine.Key.count,
            leavingOut: dropped.hasPrefix(".") ? String(dropped.dropFirst()) : nil)
        let bytes = Self.line(Self.complete)
        let read = bytes.withUnsafeBufferPointer {
            JournalLine.fast($0, names: names, commitmentNames: commitmentNames)
        }
        guard let read else { return }  // declined: the one pass needs this member on every line
        #expect(read != Self.complete.asStored)
        let reason = try #require(
            bytes.withUnsafeBufferPointer {
                JournalLine.readBack($0, as: Self.complete, names: names, commitmentNames: commitmentNames)
            })
        #expect(reason.contains("\(dropped):"), "\(reason)")
    }

    @Test func theCheckNamesAFieldTheLineDoesNotHold() throws {
        // The writer keeps an offer's details only with its type.
        let orphan = Self.transaction(1, "fx.plus", .autoRenewable) { $0.offerID = "pro.loyal" }
        let reason = try #require(Self.line(orphan).withUnsafeBufferPointer { JournalLine.readBack($0, as: orphan) })
        #expect(reason == #"it reads back as another transaction (offerID: "pro.loyal", read back as nil)"#)
    }

    /// A stored text edited to no value of its field is refused by both readers, and the full
    /// reader names the values it takes.
    @Test func aStoredTextOfNoKnownValueIsRefusedNamingTheValues() throws {
        let refunded = Self.transaction(1, "fx.levels", .nonConsumable) {
            $0.revocationDate = Date(timeIntervalSince1970: 1_800_000_000)
            $0.revocationReason = .other
            $0.revocationType = .fullRefund
        }
        let text = String(decoding: Self.line(refunded), as: UTF8.self)
        #expect(text.contains(#""revocationType":"REFUND_FULL""#))
        let bytes = Array(text.replacingOccurrences(of: "REFUND_FULL", with: "REFUND_SOME").utf8)
        #expect(bytes.withUnsafeBufferPointer { JournalLine.fast($0) } == nil)
        #expect {
            _ = try bytes.withUnsafeBufferPointer { try JournalLine.parsed($0) }
        } throws: { error in
            // The message, as the error's description escapes its quotes.
            "\(error)".contains(
                #"revocationType: expected one of [\"REFUND_FULL\", "# + #"\"REFUND_PRORATED\", \"FAMILY_REVOKE\"]"#)
        }
    }

    /// The app account token is a UUID in the domain: a line holding other text (an edit by
    /// hand) is refused by both readers, naming the field, not read as a token.
    @Test func aTokenThatIsNoUUIDIsRefusedNamingTheField() throws {
        let token = Self.transaction(1, "fx.coins", .consumable) {
            $0.appAccountToken = UUID(uuidString: "0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e")
        }
        let text = String(decoding: Self.line(token), as: UTF8.self)
        #expect(text.contains(#""appAccountToken":"0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e""#))
        let bytes = Array(text.replacingOccurrences(of: "0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e", with: "user-42").utf8)
        #expect(bytes.withUnsafeBufferPointer { JournalLine.fast($0) } == nil)
        #expect {
            _ = try bytes.withUnsafeBufferPointer { try JournalLine.parsed($0) }
        } throws: { error in
            "\(error)".contains("appAccountToken")
        }
    }
}
