import Foundation
import IAPSimCrypto
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The app receipt field by field against Apple's "Receipt Fields", which transactions it
/// lists, its signature, and `/verifyReceipt`'s status codes ("status").
@Suite struct ReceiptTests {
    let h: ServerAPIHarness
    let device = UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000ABCD")!

    init() throws { h = try ServerAPIHarness() }

    func receipt(_ environment: AppStoreEnvironment? = nil) throws -> AppReceipt {
        try h.session.appReceipt(StoreSession.ReceiptRequest(deviceIdentifier: device, environment: environment))
    }

    func signed(_ environment: AppStoreEnvironment? = nil) throws -> [UInt8] {
        try ServerAPIHarness.identity.signReceipt(try receipt(environment))
    }

    var endpoint: VerifyReceiptEndpoint {
        VerifyReceiptEndpoint(session: h.session, signer: StoreSession.Signer(identity: ServerAPIHarness.identity))
    }

    func verify(_ body: [(String, JSONValue)], method: String = "POST") -> JSONValue {
        endpoint.response(method: method, body: JSONValue.object(body).bytes(compact: true))
    }

    func base64(_ bytes: [UInt8]) -> JSONValue { .string(Data(bytes).base64EncodedString()) }

    /// Apple, "In-App Purchase Receipt": a consumable stays until the app finishes it; a
    /// non-consumable, an auto-renewable or a non-renewing subscription stays for good.
    @Test func listsEveryTransactionButFinishedConsumables() throws {
        _ = try h.session.setSetting(.finishTransactions, to: "manual")
        let coins = try h.buy("fx.coins")
        let levels = try h.buy("fx.levels")
        let pass = try h.buy("fx.pass")
        let plus = try h.buy("fx.plus.monthly")
        #expect(try receipt().inAppPurchases.map(\.transactionID) == [coins, levels, pass, plus].map { String($0.id) })
        try h.session.finish(coins.id)
        try h.session.finish(levels.id)
        #expect(try receipt().inAppPurchases.map(\.transactionID) == [levels, pass, plus].map { String($0.id) })
    }

    /// Every field the state fills, read back from the signed DER.
    /// Apple's receipts carry their certificates leaf, intermediate, root: a validator that
    /// takes the first as the signer's must find the leaf (DER's sorting put the root first).
    @Test func theCertificatesAreLeafIntermediateRoot() throws {
        let container = try CMSSignedData(derRepresentation: try signed())
        let chain = try #require(ServerAPIHarness.identity.receiptChain)
        #expect(
            container.certificates.map(\.derRepresentation)
                == [chain.leaf, chain.intermediate, chain.root].map(\.derRepresentation))
    }

    @Test func everyFieldRoundTripsThroughTheSignedContainer() throws {
        let plus = try h.buy("fx.plus.monthly")
        h.clock.advance(days: 10)
        let levels = try h.buy("fx.levels")
        _ = try h.session.refund(levels.id, reason: .developerIssue)
        let made = try receipt()
        let inspection = try ReceiptInspection.inspect(
            try ServerAPIHarness.identity.signReceipt(made), trusting: ServerAPIHarness.identity.receiptTrustAnchors)
        #expect(inspection.verifies)
        let read = inspection.receipt
        #expect(read == made)
        #expect(read.bundleID == "com.example.app" && read.receiptType == "ProductionSandbox")
        #expect(read.applicationVersion == "1.0" && read.originalApplicationVersion == "1.0")
        #expect(read.creationDate == ISO8601Date.stored(h.clock.now))
        #expect(read.opaqueValue.count == 16)
        #expect(
            read.sha1Hash
                == AppReceipt.hash(deviceIdentifier: device, opaqueValue: read.opaqueValue, bundleID: read.bundleID))
        let trial = try #require(read.inAppPurchases.first)
        #expect(trial.transactionID == String(plus.id) && trial.productID == "fx.plus.monthly" && trial.quantity == 1)
        #expect(trial.subscriptionExpirationDate == plus.expirationDate)
        #expect(trial.webOrderLineItemID.map(String.init) == plus.webOrderLineItemID)
        #expect(trial.isTrialPeriod == true && trial.isInIntroOfferPeriod == false)
        let renewal = try #require(
            read.inAppPurchases.first { $0.transactionID != trial.transactionID && $0.productID == "fx.plus.monthly" })
        #expect(renewal.originalTransactionID == String(plus.id) && renewal.isTrialPeriod == false)
        let refunded = try #require(read.inAppPurchases.first { $0.productID == "fx.levels" })
        #expect(refunded.cancellationDate != nil && refunded.subscriptionExpirationDate == nil)
        #expect(refunded.webOrderLineItemID == nil && refunded.isTrialPeriod == nil)
    }

    /// Apple, "Receipt Fields": strings are UTF8String, dates IA5String in RFC 3339.
    @Test func encodesStringsAsUTF8AndDatesAsRFC3339IA5Strings() throws {
        try h.buy("fx.levels")
        var types: [Int64: UInt8] = [:]
        try AppReceipt.forEachAttribute(in: try receipt().payload, what: "test") { type, value in
            types[type] = value.first
        }
        #expect(types[AppReceipt.FieldType.bundleID] == DERTag.utf8String)
        #expect(types[AppReceipt.FieldType.creationDate] == DERTag.ia5String)
        #expect(types[AppReceipt.FieldType.opaqueValue] != nil && types[AppReceipt.FieldType.sha1Hash] != nil)
        #expect(types[AppReceipt.FieldType.inAppPurchase] == DERTag.set)
        #expect(AppReceipt.ia5Date(Date(timeIntervalSince1970: 0)) == [0x16, 20] + Array("1970-01-01T00:00:00Z".utf8))
    }

    @Test func anAlteredReceiptDoesNotVerify() throws {
        try h.buy("fx.levels")
        var bytes = try signed()
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("fx.levels".utf8)) })
        bytes[at] = UInt8(ascii: "F")
        let inspection = try ReceiptInspection.inspect(bytes, trusting: ServerAPIHarness.identity.receiptTrustAnchors)
        #expect(inspection.chain == .badSignature)
    }

    @Test func anotherChainIsReadAndSaidToBeForeign() throws {
        try h.buy("fx.levels")
        let other = try TestCertificateChain.generate()
        let inspection = try ReceiptInspection.inspect(try signed(), trusting: [other.root])
        #expect(inspection.receipt.inAppPurchases.count == 1)
        guard case .foreign(let signer) = inspection.chain else {
            Issue.record("expected a foreign chain, got \(inspection.chain)")
            return
        }
        #expect(signer.contains("iapsim TEST ONLY Receipt Signing"))
    }

    /// Apple's algorithm: sha256WithRSAEncryption by the RSA chain's leaf, which carries
    /// Apple's receipt-signing marker, under an intermediate with Apple's intermediate marker.
    @Test func isSignedWithRSAAndSHA256ByTheReceiptChain() throws {
        try h.buy("fx.levels")
        let inspection = try ReceiptInspection.inspect(
            try signed(), trusting: ServerAPIHarness.identity.receiptTrustAnchors)
        #expect(inspection.verifies)
        #expect(inspection.container.signatureAlgorithm == .sha256WithRSAEncryption)
        #expect(inspection.container.digestAlgorithm == CMSSignedData.sha256)
        let chain = try #require(ServerAPIHarness.identity.receiptChain)
        #expect(inspection.container.signerCertificate == chain.leaf)
        #expect(chain.leaf.extension(.appleStoreSigningMarker) != nil)
        #expect(chain.intermediate.extension(.appleWWDRIntermediateMarker) != nil)
        #expect(chain.leaf.signatureAlgorithm == .sha256WithRSAEncryption)
        // The P-256 JWS root alone does not vouch for it.
        #expect(
            try ReceiptInspection.inspect(try signed(), trusting: [ServerAPIHarness.identity.chain.root]).chain
                != .iapsim)
    }

    /// A receipt as iapsim wrote it before the RSA chain (ECDSA by the P-256 leaf) still verifies.
    @Test func aReceiptSignedByThePreviousP256ChainStillVerifies() throws {
        try h.buy("fx.levels")
        let chain = ServerAPIHarness.identity.chain
        let old = try CMSSignedData.sign(
            content: try receipt().payload, signer: chain.leaf, key: chain.leafKey,
            certificates: chain.certificatesLeafFirst)
        let inspection = try ReceiptInspection.inspect(old, trusting: ServerAPIHarness.identity.receiptTrustAnchors)
        #expect(inspection.container.signatureAlgorithm == .ecdsaWithSHA256)
        #expect(inspection.verifies)
        let answer = verify([("receipt-data", .string(Data(old).base64EncodedString()))])
        #expect(answer["status"] == .int(0))
    }

    /// A receipt written as BER (indefinite lengths outside, as other signers write) reads the same.
    @Test func readsABERContainer() throws {
        try h.buy("fx.levels")
        let der = try signed()
        // The outer SEQUENCE re-written with an indefinite length.
        var reader = DERReader(der)
        let outer = try reader.readElement()
        let ber = [DERTag.sequence, 0x80] + Array(outer.contents) + [0, 0]
        let inspection = try ReceiptInspection.inspect(ber, trusting: ServerAPIHarness.identity.receiptTrustAnchors)
        #expect(inspection.verifies)
    }

    @Test func malformedInputIsAnErrorNeverATrap() throws {
        try h.buy("fx.levels")
        let der = try signed()
        let root = ServerAPIHarness.identity.receiptTrustAnchors
        for cut in stride(from: 0, to: der.count, by: max(1, der.count / 97)) {
            #expect(throws: ReceiptError.self) { try ReceiptInspection.inspect(Array(der[..<cut]), trusting: root) }
        }
        #expect(throws: ReceiptError.self) { try ReceiptInspection.inspect(Array("not base64!".utf8), trusting: root) }
        #expect(throws: ReceiptError.self) { try ReceiptInspection.inspect([0x30, 0x80, 0x30, 0x80], trusting: root) }
    }

    /// Apple, "status": each bad request gets its code, and a good one 0 with its environment.
    @Test func verifyReceiptStatusCodes() throws {
        try h.buy("fx.plus.monthly")
        let good = try signed()
        #expect(endpoint.response(method: "GET", body: [])["status"] == .int(21000))
        #expect(endpoint.response(method: "POST", body: Array("{".utf8))["status"] == .int(21002))
        #expect(verify([("password", .string("x"))])["status"] == .int(21002))
        #expect(verify([("receipt-data", base64(Array(good.prefix(100))))])["status"] == .int(21002))
        var altered = good
        let at = try #require(altered.indices.first { altered[$0...].starts(with: Array("fx.plus".utf8)) })
        altered[at] = UInt8(ascii: "F")
        #expect(verify([("receipt-data", base64(altered))])["status"] == .int(21003))
        #expect(verify([("receipt-data", base64(try signed(.production)))])["status"] == .int(21008))
        let answer = verify([("receipt-data", base64(good))])
        #expect(answer["status"] == .int(0) && answer["environment"] == .string("Sandbox"))
        _ = try h.session.setSetting(.sharedSecret, to: "s3cret")
        #expect(verify([("receipt-data", base64(good))])["status"] == .int(21004))
        #expect(verify([("receipt-data", base64(good)), ("password", .string("no"))])["status"] == .int(21004))
        let valid = verify([("receipt-data", base64(good)), ("password", .string("s3cret"))])
        #expect(valid["status"] == .int(0))
        let production = VerifyReceiptEndpoint(
            session: h.session,
            signer: StoreSession.Signer(identity: ServerAPIHarness.identity, environment: .production))
        let body = JSONValue.object([("receipt-data", base64(good)), ("password", .string("s3cret"))])
        #expect(production.response(method: "POST", body: body.bytes(compact: true))["status"] == .int(21007))
    }

    /// Apple, "responseBody": latest_receipt_info newest first, pending_renewal_info per chain,
    /// dates in three forms.
    @Test func verifyReceiptAnswersFromTheStateNow() throws {
        let plus = try h.buy("fx.plus.monthly")
        let good = try signed()
        h.clock.advance(days: 40)  // renewals after the receipt was made
        let answer = verify([("receipt-data", base64(good))])
        let latest = try #require(answer["latest_receipt_info"]?.arrayValue)
        let ids = latest.compactMap { $0["transaction_id"]?.stringValue }
        #expect(ids.count > 1 && ids.last == String(plus.id))
        #expect(ids == ids.sorted { UInt64($0)! > UInt64($1)! })
        #expect(answer["receipt"]?["in_app"]?.arrayValue?.count == 1)
        let first = try #require(latest.first)
        #expect(first["purchase_date"]?.stringValue?.hasSuffix(" Etc/GMT") == true)
        #expect(first["purchase_date_pst"]?.stringValue?.hasSuffix(" America/Los_Angeles") == true)
        #expect(first["in_app_ownership_type"] == .string("PURCHASED"))
        let renewal = try #require(answer["pending_renewal_info"]?.arrayValue?.first)
        #expect(
            renewal["auto_renew_status"] == .string("1")
                && renewal["original_transaction_id"] == .string(String(plus.id)))
        let thin = verify([("receipt-data", base64(good)), ("exclude-old-transactions", .bool(true))])
        #expect(thin["latest_receipt_info"]?.arrayValue?.count == 1)
        _ = try h.session.cancelSubscription("fx.plus.monthly")
        h.clock.advance(days: 40)
        let lapsed = try #require(verify([("receipt-data", base64(good))])["pending_renewal_info"]?.arrayValue?.first)
        #expect(lapsed["auto_renew_status"] == .string("0") && lapsed["expiration_intent"] == .string("1"))
    }

    /// One server answers for every customer of the store: a receipt is answered from the
    /// state of the customer its first purchase belongs to, and one with no purchase from
    /// `default`'s.
    @Test func verifyReceiptAnswersForTheReceiptsCustomer() throws {
        let own = try h.buy("fx.plus.monthly")
        let bob = h.session.forAccount("bob")
        let request = try PurchaseRequest(productID: "fx.plus.monthly")
        let result = try bob.purchase(try bob.quote(request, in: h.catalog), in: h.catalog).result
        guard case .purchased(let bobs) = result else {
            Issue.record("expected bob's purchase, got \(result)")
            return
        }
        #expect(bobs.id != own.id)
        let receipt = try bob.appReceipt(StoreSession.ReceiptRequest(deviceIdentifier: device, environment: nil))
        let answer = verify([("receipt-data", base64(try ServerAPIHarness.identity.signReceipt(receipt)))])
        #expect(answer["status"] == .int(0))
        let ids = try #require(answer["latest_receipt_info"]?.arrayValue).compactMap {
            $0["transaction_id"]?.stringValue
        }
        #expect(ids == [String(bobs.id)])
        let renewal = try #require(answer["pending_renewal_info"]?.arrayValue)
        #expect(renewal.map { $0["original_transaction_id"] } == [.string(String(bobs.id))])
        // The receipt's customer's own: default's answer is default's.
        let mine = verify([("receipt-data", base64(try signed()))])
        #expect(
            mine["latest_receipt_info"]?.arrayValue?.compactMap { $0["transaction_id"]?.stringValue } == [
                String(own.id)
            ])
    }

    /// A removed customer's receipt was answered 0 with `default`'s purchases: Apple answers
    /// 21010 for an account that is gone.
    @Test func aRemovedCustomersReceiptIs21010() throws {
        _ = try h.buy("fx.plus.monthly")
        let bob = h.session.forAccount("bob")
        let request = try PurchaseRequest(productID: "fx.plus.monthly")
        _ = try bob.purchase(try bob.quote(request, in: h.catalog), in: h.catalog)
        let receipt = try bob.appReceipt(StoreSession.ReceiptRequest(deviceIdentifier: device, environment: nil))
        let body = [("receipt-data", base64(try ServerAPIHarness.identity.signReceipt(receipt)))]
        #expect(verify(body)["status"] == .int(0))
        _ = try bob.store.removeAccount()
        let answer = verify(body)
        #expect(answer["status"] == .int(21010))
        #expect(answer["latest_receipt_info"] == nil && answer["receipt"] == nil)
    }

    /// The Base64 text is read where it lies in the body: JSON's `\/` escape (PHP's
    /// json_encode writes it), line breaks (`base64 -w 76`, escaped or not) and a `\u`
    /// escape all read as the text they stand for.
    @Test func receiptDataIsReadInPlaceWithItsEscapes() throws {
        try h.buy("fx.plus.monthly")
        let text = Data(try signed()).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
        let slashes = text.replacingOccurrences(of: "/", with: "\\/")
        for encoded in [
            text.replacingOccurrences(of: "\n", with: "\\n"), slashes.replacingOccurrences(of: "\n", with: ""),
            slashes.replacingOccurrences(of: "\n", with: "\\r\\n"),
            slashes.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "A", with: "\\u0041"),
        ] {
            let body = Array(("{\"password\":null,\"receipt-data\":\"" + encoded + "\"}").utf8)
            #expect(endpoint.response(method: "POST", body: body)["status"] == .int(0), "\(encoded.prefix(80))")
        }
        for bad in ["AAA", "A===", "AB=C", "\\x41AA"] {
            let body = Array(("{\"receipt-data\":\"" + bad + "\"}").utf8)
            #expect(endpoint.response(method: "POST", body: body)["status"] == .int(21002), "\(bad)")
        }
    }

    /// 2026-03-08 is the start of daylight saving time in Los Angeles: 10:00Z is 03:00 PDT.
    @Test func pacificTimeFollowsDaylightSaving() {
        let winter = LegacyReceiptJSON.date("x", Date(timeIntervalSince1970: 1_772_956_800))  // 2026-03-08T08:00:00Z
        #expect(winter[2].1 == .string("2026-03-08 00:00:00 America/Los_Angeles"))
        #expect(winter[1].1 == .string("1772956800000"))
        let summer = LegacyReceiptJSON.date("x", Date(timeIntervalSince1970: 1_772_964_000))  // 10:00Z
        #expect(summer[0].1 == .string("2026-03-08 10:00:00 Etc/GMT"))
        #expect(summer[2].1 == .string("2026-03-08 03:00:00 America/Los_Angeles"))
    }
}
