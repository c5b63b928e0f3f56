import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// Refunds in signed data: Apple's "revocationType" (`REFUND_FULL`, `REFUND_PRORATED`,
/// `FAMILY_REVOKE`) and "revocationPercentage" (milliunits, "present … for refunded
/// transactions", gone once the refund is reversed).
@Suite struct RefundPayloadTests {
    let h: ServerAPIHarness

    init() throws { h = try ServerAPIHarness() }

    @Test func aProratedRefundIsRefundProratedWithItsPercentage() throws {
        let bought = try h.buy("fx.plus.yearly")
        let revocation = try h.session.refundTransaction(
            bought.id, reason: .other, percentage: try RevocationPercentage(text: "40"))
        #expect(revocation.transaction.revocationDate == h.clock.now)
        let signed = try h.signedTransaction(bought.id)
        #expect(signed["revocationType"] == .string("REFUND_PRORATED"))
        #expect(signed["revocationPercentage"] == .number("40000"))
        // The REFUND notification follows, its transaction as prorated.
        let refund = try #require(try h.session.notifications().last?.notification)
        #expect(refund.kind == .refund && refund.transaction?.revocationPercentage == 40)
        // Reversed: no percentage any more.
        _ = try h.session.reverseRefund(bought.id)
        let reversed = try h.signedTransaction(bought.id)
        #expect(reversed["revocationPercentage"] == nil && reversed["revocationType"] == nil)
        #expect(try h.session.store.transaction(bought.id)?.revocationType == nil)
    }

    /// `Transaction.revocationType` (StoreKit, iOS 26.4) is recorded when the transaction is
    /// revoked, and shown as StoreKit names it; the signed form spells it as Apple's server does.
    @Test func howATransactionWasRevokedIsRecordedAndShown() throws {
        let context = try h.session.storeKitContext()
        let full = try h.buy("fx.levels")
        _ = try h.session.refund(full.id, reason: .developerIssue)
        let prorated = try h.buy("fx.plus.yearly")
        _ = try h.session.refundTransaction(
            prorated.id, reason: .other, percentage: try RevocationPercentage(text: "40"))
        let shared = try h.share("fx.levels")
        _ = try h.session.revokeFamilySharing(shared.id)
        for (id, type, shown) in [
            (full.id, Transaction.RevocationType.fullRefund, "fullRefund"),
            (prorated.id, .proratedRefund, "proratedRefund"), (shared.id, .familyRevocation, "familyRevocation"),
        ] {
            let stored = try #require(try h.session.store.transaction(id))
            #expect(stored.revocationType == type)
            #expect(stored.storeKitJSON(context)["revocationType"] == .string(shown))
        }
        #expect(full.storeKitJSON(context)["revocationType"] == nil)
    }

    /// A record revoked before the type was kept shows the type its other fields tell, in
    /// every form.
    @Test func aRevocationRecordedWithoutItsTypeIsToldFromTheOtherFields() throws {
        var refunded = try h.buy("fx.levels")
        refunded.revocationDate = h.clock.now
        refunded.revocationReason = .other
        #expect(refunded.revocationType == nil && refunded.revocationKind == .fullRefund)
        refunded.revocationPercentage = 40
        #expect(refunded.revocationKind == .proratedRefund)
        var shared = refunded
        shared.revocationReason = nil
        shared.revocationPercentage = nil
        shared.ownershipType = .familyShared
        #expect(shared.revocationKind == .familyRevocation)
        #expect(shared.storeKitJSON(try h.session.storeKitContext())["revocationType"] == .string("familyRevocation"))
    }

    @Test func aFullRefundSaysOneHundredPercent() throws {
        let bought = try h.buy("fx.levels")
        _ = try h.session.refund(bought.id, reason: .developerIssue)
        let signed = try h.signedTransaction(bought.id)
        #expect(signed["revocationType"] == .string("REFUND_FULL"))
        #expect(signed["revocationPercentage"] == .number("100000"))
        #expect(bought.storeKitJSON(try h.session.storeKitContext())["revocationPercentage"] == nil)
        let refunded = try #require(try h.session.store.transaction(bought.id))
        #expect(refunded.storeKitJSON(try h.session.storeKitContext())["revocationPercentage"] == .string("100"))
    }

    @Test func aFamilyRevocationHasNoPercentage() throws {
        let shared = try h.share("fx.levels")
        let revoked = try h.session.revokeFamilySharing(shared.id).transaction
        let signed = SignedPayloads.transaction(
            revoked,
            context: SigningContext(
                bundleID: "com.example.app", appAppleID: nil, environment: .sandbox, signedDate: h.clock.now,
                appTransactionID: "1"))
        #expect(signed["revocationType"] == .string("FAMILY_REVOKE") && signed["revocationPercentage"] == nil)
    }

    @Test(arguments: ["40", "67.932", "0.015", "99.999", "12.5%"])
    func aPercentageOfUpToThreeDecimalsIsTaken(_ text: String) throws {
        let percentage = try RevocationPercentage(text: text)
        let digits = text.replacingOccurrences(of: "%", with: "")
        #expect(percentage.milliunits == Int(truncating: (Decimal(string: digits)! * 1000) as NSDecimalNumber))
    }

    @Test(arguments: ["0", "100", "150", "-5", "40.1234", "forty", "", "1e2"])
    func aPercentageOutsideTheProratedRangeIsRefused(_ text: String) {
        #expect(throws: InvalidRevocationPercentage(text: text)) { try RevocationPercentage(text: text) }
    }
}
