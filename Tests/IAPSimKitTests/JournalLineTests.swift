import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The one-pass reader of journal lines agrees with the full parser on every line: the same
/// transaction, or the same refusal. And the order identifiers and dates it leans on.
@Suite struct JournalLineTests {
    /// What the full parser makes of `line`.
    private func parsed(_ line: String) -> Transaction? {
        guard let json = try? JSONValue.parse(Array(line.utf8)), let reader = try? Reader(json, at: "") else {
            return nil
        }
        return try? Transaction(reader)
    }

    private func fast(_ line: String) -> Transaction? {
        Array(line.utf8).withUnsafeBufferPointer { try? JournalLine.transaction($0) }
    }

    /// What the one pass alone makes of `line`: nil when it declines and the full parser decides.
    private func onePass(_ line: String) -> Transaction? {
        Array(line.utf8).withUnsafeBufferPointer { JournalLine.fast($0) }
    }

    private func record(_ line: String) -> TransactionIndex.Record? {
        Array(line.utf8).withUnsafeBufferPointer { bytes in
            try? JournalLine.record(bytes, offset: 7) { name in
                String(decoding: name, as: UTF8.self) == "fx.coins" ? 1 : 2
            }
        }
    }

    /// A monthly plan's payment, with the one object a line holds inside.
    static let commitment =
        #"{"id":7,"originalID":5,"productID":"fx.plus","productType":"autoRenewable","#
        + #""purchaseDate":"2026-02-15T12:00:00Z","originalPurchaseDate":"2026-01-15T12:00:00Z","#
        + #""expirationDate":"2026-03-15T12:00:00Z","subscriptionGroupID":"G1","reason":"renewal","#
        + #""price":"1.99","currency":"USD","storefrontCountryCode":"USA","billingPlanType":"MONTHLY","#
        + #""commitmentInfo":{"billingPeriodNumber":2,"totalBillingPeriods":12,"#
        + #""expirationDate":"2027-01-15T12:00:00Z","price":"23.88"}}"#

    static let canonical =
        #"{"id":12,"originalID":12,"productID":"fx.coins","productType":"consumable","purchaseDate":"2026-01-15T12:00:00Z","originalPurchaseDate":"2026-01-15T12:00:00Z","purchasedQuantity":2,"expirationDate":null,"revocationDate":null,"revocationReason":null,"subscriptionGroupID":null,"isUpgraded":false,"reason":"purchase","price":"1.98","currency":"USD","storefrontCountryCode":"USA"}"#

    @Test(arguments: [
        canonical,
        #"{"currency":"USD","id":1,"isUpgraded":false,"originalID":1,"originalPurchaseDate":"2026-01-01T00:00:00Z","price":"0.99","productID":"p","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","purchasedQuantity":1,"reason":"purchase","storefrontCountryCode":"USA"}"#,
        #" { "id" : 3 , "originalID":1,"productID":"fx.plus","productType":"autoRenewable","purchaseDate":"2026-02-15T12:00:00Z","originalPurchaseDate":"2026-01-15T12:00:00Z","expirationDate":"2026-03-15T12:00:00Z","revocationDate":"2026-02-20T00:00:00Z","revocationReason":"developerIssue","subscriptionGroupID":"G1","isUpgraded":true,"reason":"renewal","offerType":"introductory","offerPaymentMode":"free","price":"0","currency":"EUR","storefrontCountryCode":"DEU","extra":[1,{"a":2}]} "#,
        #"{"id":4,"originalID":4,"productID":"fx.levels","productType":"nonConsumable","purchaseDate":"2026-01-15T12:00:00Z","originalPurchaseDate":"2026-01-15T12:00:00Z","purchasedQuantity":1,"expirationDate":null,"revocationDate":null,"revocationReason":null,"subscriptionGroupID":null,"isUpgraded":false,"reason":"purchase","price":"2.99","currency":"USD","storefrontCountryCode":"USA","deletionDate":"2026-02-01T00:00:00Z"}"#,
        #"{"id":4,"originalID":4,"productID":"a","productType":"consumable","purchaseDate":"2026-01-15T12:00:00Z","originalPurchaseDate":"2026-01-15T12:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA","deletionDate":"yesterday"}"#,
        #"{"id":1,"id":2,"originalID":2,"productID":"a","productType":"nonConsumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA","reason":null}"#,
        #"{"id":1,"originalID":1,"productID":"caf\u00e9","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":1,"originalID":1,"productID":"café","productType":"consumable","purchaseDate":"2026-01-01T00:00:00.5Z","originalPurchaseDate":"2026-01-01T00:00:00+01:00","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"consumable","purchaseDate":"0000-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"consumable","purchaseDate":"2026-02-30T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":"1","originalID":1,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":18446744073709551616,"originalID":1,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":007,"originalID":1e3,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"gift","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1.","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","purchasedQuantity":0,"price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","isUpgraded":"no","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"} x"#,
        #"{"id":1,"originalID":1,"productID":"a\"b","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA""#,
        // Schema 4: a family-shared transaction with an offer period, and the values neither reads.
        #"{"id":5,"originalID":5,"productID":"fx.plus","productType":"autoRenewable","purchaseDate":"2026-01-15T12:00:00Z","originalPurchaseDate":"2026-01-15T12:00:00Z","expirationDate":"2026-01-22T12:00:00Z","subscriptionGroupID":"G1","reason":"purchase","offerType":"introductory","offerPaymentMode":"free","offerPeriod":"P1W","price":"0","currency":"USD","storefrontCountryCode":"USA","appAccountToken":"0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e","ownershipType":"familyShared"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"nonConsumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA","ownershipType":"purchased"}"#,
        #"{"id":6,"originalID":5,"productID":"fx.plus","productType":"autoRenewable","purchaseDate":"2026-02-15T12:00:00Z","originalPurchaseDate":"2026-01-15T12:00:00Z","expirationDate":"2026-03-15T12:00:00Z","subscriptionGroupID":"G1","reason":"renewal","offerType":"code","offerPaymentMode":"free","offerID":"pro.winter","price":"0","currency":"USD","storefrontCountryCode":"USA","billingPlanType":"MONTHLY"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"autoRenewable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA","offerID":7}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"nonConsumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA","ownershipType":"borrowed"}"#,
        #"{"id":1,"originalID":1,"productID":"a","productType":"autoRenewable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA","offerPeriod":"one week"}"#,
        // A prorated refund's percentage, and one that does not read.
        #"{"id":8,"originalID":8,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","#
            + #""originalPurchaseDate":"2026-01-01T00:00:00Z","revocationDate":"2026-01-02T00:00:00Z","#
            + #""revocationReason":"other","revocationPercentage":"67.932","price":"1","currency":"USD","#
            + #""storefrontCountryCode":"USA"}"#,
        #"{"id":8,"originalID":8,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","#
            + #""originalPurchaseDate":"2026-01-01T00:00:00Z","revocationPercentage":40,"price":"1","currency":"USD","#
            + #""storefrontCountryCode":"USA"}"#,
        // A monthly plan's payment with its commitment, and commitments that do not read, read
        // only by the full parser, or repeated (the last counts whole).
        commitment,
        commitment.replacingOccurrences(of: #""price":"23.88"}"#, with: #""price":"23.88","next":null} "#),
        commitment.replacingOccurrences(of: #""price":"23.88"}"#, with: #""price":"23.88","x":{"y":1}}"#),
        commitment.replacingOccurrences(of: "2027-01-15T12:00:00Z", with: "2027-01-15T12:00:00.5Z"),
        commitment.replacingOccurrences(of: #""price":"23.88"}"#, with: #""price":23.88}"#),
        commitment.replacingOccurrences(of: #""totalBillingPeriods":12,"#, with: ""),
        commitment.replacingOccurrences(of: "}}", with: #"},"commitmentInfo":null}"#),
        commitment.replacingOccurrences(of: "}}", with: #"},"commitmentInfo":{"billingPeriodNumber":1}}"#),
        commitment.replacingOccurrences(
            of: "}}",
            with: #"},"commitmentInfo":{"billingPeriodNumber":3,"totalBillingPeriods":12,"#
                + #""expirationDate":"2027-01-15T12:00:00Z","price":"23.88"}}"#),
        commitment.replacingOccurrences(of: #""commitmentInfo":{"#, with: #""commitmentInfo":"{"#),
        commitment.replacingOccurrences(of: #""commitmentInfo":{"#, with: #""commitmentInfo": { "#),
        commitment.replacingOccurrences(of: #""price":"1.99","#, with: #""price":"1.99","other":{},"#),
        #"{"id":7,"originalID":5,"productID":"fx.plus","productType":"autoRenewable","#
            + #""purchaseDate":"2026-02-15T12:00:00Z","originalPurchaseDate":"2026-01-15T12:00:00Z","#
            + #""price":"1.99","currency":"USD","storefrontCountryCode":"USA","#
            + #""commitmentInfo":{"billingPeriodNumber":0,"totalBillingPeriods":12,"#
            + #""expirationDate":"2027-01-15T12:00:00Z","price":"23.88"}}"#,
        "[1, 2]", "", "{}", "{\"id\":1,}", "nul", "{\"id\":tru}",
    ])
    func readsEachLineAsTheFullParserDoes(_ line: String) {
        let expected = parsed(line)
        #expect(fast(line) == expected)
        if let read = onePass(line) { #expect(read == expected) }
        #expect(
            record(line)
                == expected.map {
                    TransactionIndex.Record(
                        $0, offset: 7, productKey: $0.productID == "fx.coins" ? 1 : 2,
                        groupKey: $0.subscriptionGroupID.map { $0 == "fx.coins" ? 1 : 2 })
                })
    }

    @Test(arguments: [canonical, commitment])
    func agreesOnLinesCutAnywhere(_ original: String) {
        var random = Support.SeededRandom(label: "journal lines")
        let bytes = Array(original.utf8)
        for _ in 0..<2000 {
            var line = bytes
            switch Int.random(in: 0..<3, using: &random) {
            case 0: line = Array(line.prefix(Int.random(in: 0...line.count, using: &random)))
            case 1: line[Int.random(in: 0..<line.count, using: &random)] = UInt8.random(in: 0x20...0x7E, using: &random)
            default: line.remove(at: Int.random(in: 0..<line.count, using: &random))
            }
            let text = String(decoding: line, as: UTF8.self)
            let expected = parsed(text)
            #expect(fast(text) == expected, "\(text)")
            if let read = onePass(text) { #expect(read == expected, "\(text)") }
        }
    }

    // MARK: Order identifiers

    @Test(arguments: [0, 1, 2, 3, 1_000_000, (1 << 45) - 1, 1 << 45, UInt64.max - 1, UInt64.max] as [UInt64])
    func orderIDsComeBackToTheirPurchase(_ id: UInt64) {
        let order = OrderID.string(transactionID: id)
        #expect(order.count == (id < 1 << 45 ? 10 : 14))
        #expect(order.first == "M")
        #expect(OrderID.transactionID(order) == id)
        #expect(OrderID.transactionID(order.lowercased()) == id)
    }

    @Test func neighbouringPurchasesGetUnlikeOrders() {
        #expect(OrderID.string(transactionID: 1) == "MSQ5ZMMZ0N")
        let orders = (1...1000).map { OrderID.string(transactionID: $0) }
        #expect(Set(orders).count == 1000)
        #expect(OrderID.string(transactionID: 1).dropFirst(5) != OrderID.string(transactionID: 2).dropFirst(5))
    }

    @Test(arguments: [
        "", "M", "MSQ5ZMMZ0", "XSQ5ZMMZ0N", "MSQ5ZMMZ0I", "MSQ5ZMMZ0N0", "MZZZZZZZZZZZZZ", "M00000000000000",
    ])
    func textThatIsNoOrderIsRefused(_ text: String) {
        #expect(OrderID.transactionID(text) == nil)
    }

    // MARK: Dates

    @Test func datesAreWrittenAsTheExpandedFormWritesThem() {
        var random = Support.SeededRandom(label: "dates")
        for _ in 0..<5000 {
            let seconds = Double.random(in: -62_135_596_800...253_402_300_799, using: &random)
            let date = Date(
                timeIntervalSince1970: Int.random(in: 0..<2, using: &random) == 0 ? seconds.rounded(.down) : seconds)
            #expect(ISO8601Date.string(date) == ISO8601Date.expandedString(date))
        }
        #expect(ISO8601Date.string(Date(timeIntervalSince1970: 1e12)) == "9999-12-31T23:59:59Z")
        #expect(ISO8601Date.string(Date(timeIntervalSince1970: -1e14)) == "0001-01-01T00:00:00Z")
    }
}
