import Foundation
import Testing

@testable import IAPSimKit

/// A purchase request is checked where it comes in: `SKMutablePayment.quantity` is 1 to 10,
/// an app account token is a UUID, and the textual forms are refused in the words the
/// command line has always used.
@Suite struct PurchaseRequestTests {
    /// StoreKit 2's options are a set, in no order: the offer's signature is checked with the
    /// token whether the token option came before the offer or after it.
    @Test func aStoreKitPurchaseSignsItsOfferWithItsTokenWhateverTheOrder() throws {
        let token = UUID()
        let nonce = UUID()
        var purchase = StoreKitPurchase(productID: "fx.plus")
        purchase.offer = .promotional(id: "o", keyID: "K", nonce: nonce, timestamp: 5, signature: "AAAA")
        purchase.appAccountToken = token
        purchase.quantity = 2
        purchase.simulatesAskToBuy = true
        let request = try PurchaseRequest(purchase)
        let signature = PromotionalOfferSignature(keyID: "K", nonce: nonce.appleString, timestamp: 5, signature: "AAAA")
        #expect(request.offer == .offer(id: "o", signature: signature, appAccountToken: token))
        #expect(request.appAccountToken == token && request.quantity == 2)
        #expect(request.outcome == .askToBuy)
        purchase.offer = .winBack(id: "w")
        #expect(try PurchaseRequest(purchase).offer == .offer(id: "w", signature: nil))
        purchase.quantity = 0
        #expect(throws: PurchaseRequestError.invalidQuantity("0")) { try PurchaseRequest(purchase) }
    }

    @Test(arguments: [0, -2, 11, 1000, Int.min, Int.max])
    func aQuantityOutsideOneToTenIsRefusedNamingIt(value: Int) {
        #expect(throws: PurchaseRequestError.invalidQuantity(String(value))) { try PurchaseQuantity(value) }
        let error = PurchaseRequestError.invalidQuantity(String(value))
        #expect(error.errorDescription == "--quantity \(value): expected a whole number from 1 to 10")
    }

    @Test func oneToTenAreQuantities() throws {
        for value in 1...10 { #expect(try PurchaseQuantity(value).value == value) }
        #expect(PurchaseQuantity.one.value == 1)
        #expect(try PurchaseQuantity(text: "10") == 10)
    }

    @Test(arguments: ["0", "11", "+3", "-2", " 3", "3 ", "", "٣", "1e1", "03x"])
    func quantityTextOtherThanOneToTenIsRefused(text: String) {
        #expect(throws: PurchaseRequestError.invalidQuantity(text)) { try PurchaseQuantity(text: text) }
    }

    @Test func theOtherTextualFormsParseAsTheCommandLineSpellsThem() throws {
        #expect(try BillingPlanType(text: "MONTHLY") == .monthly)
        #expect(try BillingPlanType(text: "upfront") == .billedUpfront)
        #expect(try BillingPlanType(text: "billed_upfront") == .billedUpfront)
        #expect(throws: PurchaseRequestError.invalidBillingPlan("yearly")) { try BillingPlanType(text: "yearly") }
        #expect(
            PurchaseRequestError.invalidBillingPlan("yearly").errorDescription
                == "--billing-plan yearly: expected monthly or upfront")

        let token = try UUID(appAccountToken: "0E8F4F4A-5A3B-4C8E-9D1E-2F3A4B5C6D7E")
        #expect(token.uuidString.lowercased() == "0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e")
        #expect(throws: PurchaseRequestError.invalidAppAccountToken("nope")) { try UUID(appAccountToken: "nope") }
        #expect(
            PurchaseRequestError.invalidAppAccountToken("nope").errorDescription
                == "--app-account-token nope: expected a UUID such as 0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e")

        #expect(try StoreSession.Outcome(text: "ask-to-buy") == .askToBuy)
        #expect(try StoreSession.Outcome(text: "fail") == .fail(SimulatedError.unknown))
        guard case .fail(let error) = try StoreSession.Outcome(text: "fail=networkError") else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.qualifiedName == "StoreKitError.networkError")
        #expect(throws: PurchaseRequestError.invalidOutcome("maybe")) { try StoreSession.Outcome(text: "maybe") }
        #expect(throws: PurchaseRequestError.errorNotAllowed(name: "duplicateRequest")) {
            try StoreSession.Outcome(text: "fail=duplicateRequest")
        }
    }

    @Test func aFamilyMembersRequestTakesNoOutcomeOrOffer() throws {
        #expect(throws: PurchaseRequestError.familyMemberPurchase) {
            try PurchaseRequest(productID: "p", outcome: .cancel, isFamilyMember: true)
        }
        #expect(throws: PurchaseRequestError.familyMemberPurchase) {
            try PurchaseRequest(productID: "p", offer: .code(id: "c"), isFamilyMember: true)
        }
        #expect(try PurchaseRequest(productID: "p", isFamilyMember: true).isFamilyMember)
    }

    @Test func aRequestCarriesItsOptionsToTheTransaction() throws {
        let catalog = try Support.validCatalog()
        let session = StoreSession(
            store: Support.store(), now: { Support.fixedDate }, catalogSettings: catalog.store.settings)
        let token = try UUID(appAccountToken: "0E8F4F4A-5A3B-4C8E-9D1E-2F3A4B5C6D7E")
        let request = try PurchaseRequest(productID: "fx.coins", quantity: 10, appAccountToken: token)
        let quote = try session.quote(request, in: catalog)
        #expect(quote.quantity == 10)
        let transaction = try #require(try session.purchase(quote, in: catalog).result.transaction)
        #expect(transaction.purchasedQuantity == 10)
        #expect(transaction.appAccountToken?.appleString == "0e8f4f4a-5a3b-4c8e-9d1e-2f3a4b5c6d7e")
        #expect(try session.status().consumables["fx.coins"] == 10)
        #expect(throws: PurchaseError.invalidQuantity(productID: "fx.levels", quantity: 2)) {
            try session.quote(try PurchaseRequest(productID: "fx.levels", quantity: 2), in: catalog)
        }
    }
}

/// The writer refuses what the reader would reject, so no change leaves a state that reads
/// back as corrupt: the files stay as they were, and the next read works.
@Suite struct StateWriteCheckTests {
    private func transaction(id: UInt64, quantity: Int, price: Decimal = 1) -> Transaction {
        Transaction(
            id: id, originalID: id, productID: "fx.coins", productType: .consumable, purchaseDate: Support.fixedDate,
            originalPurchaseDate: Support.fixedDate, purchasedQuantity: quantity, price: price, currency: "USD",
            storefrontCountryCode: "USA")
    }

    private func expectRefused(_ store: StateStore, _ change: (inout PurchaseState) throws -> Void) throws {
        let before = try store.read()
        let error = try #require(throws: StateError.self) { try store.update(change) }
        guard case .unwritable = error else {
            Issue.record("expected unwritable, got \(error)")
            return
        }
        #expect(try store.read() == before)
        #expect(try store.transactions().count == before.account.transactionCount)
    }

    @Test(arguments: [0, -2])
    func aTransactionWhoseQuantityTheReaderRefusesIsNotWritten(quantity: Int) throws {
        let store = Support.store()
        try store.update { try $0.account.record(transaction(id: 1, quantity: 1), isNew: true) }
        try expectRefused(store) { state in
            try state.account.record(transaction(id: 2, quantity: quantity), isNew: true)
        }
    }

    @Test func aTransactionItsLineWouldNotHoldIsNotWritten() throws {
        let store = Support.store()
        try store.update { try $0.account.record(transaction(id: 1, quantity: 1), isNew: true) }
        let journal = try Data(contentsOf: URL(fileURLWithPath: store.location.journalPath))
        var orphan = transaction(id: 2, quantity: 1)
        orphan.offerID = "pro.loyal"  // the line keeps an offer's details only with its type
        try expectRefused(store) { try $0.account.record(orphan, isNew: true) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.location.journalPath)) == journal)
    }

    @Test func aNegativePriceOrBalanceIsNotWritten() throws {
        let store = Support.store()
        try expectRefused(store) { try $0.account.record(transaction(id: 1, quantity: 1, price: -1), isNew: true) }
        try expectRefused(store) { $0.app.consumables["fx.coins"] = -2 }
    }

    @Test func aPendingPurchaseOfNoneIsNotWritten() throws {
        let store = Support.store()
        try expectRefused(store) { state in
            state.simulation.pending.append(
                PendingPurchase(
                    id: 1, productID: "fx.coins", productType: .consumable, purchasedQuantity: 0, reason: .askToBuy,
                    requestDate: Support.fixedDate))
        }
    }

    /// Every quantity a request can hold is written and read back, through Ask to Buy too.
    @Test func everyStateTheSessionWritesReadsBack() throws {
        let catalog = try Support.validCatalog()
        let store = Support.store()
        let session = StoreSession(store: store, now: { Support.fixedDate }, catalogSettings: catalog.store.settings)
        for value in PurchaseQuantity.range {
            let outcome: StoreSession.Outcome = value.isMultiple(of: 2) ? .success : .askToBuy
            let request = try PurchaseRequest(
                productID: "fx.coins", quantity: try PurchaseQuantity(value), outcome: outcome)
            _ = try session.purchase(try session.quote(request, in: catalog), in: catalog)
            let reread = try StateStore(location: store.location).read()
            #expect(reread.account.transactionCount == value / 2)
        }
    }
}
