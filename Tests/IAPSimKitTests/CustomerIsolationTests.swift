import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// One customer's data never reaches another: not through a sign a parser reads and another
/// does not, a removed customer's receipt, a number given twice, or names that differ in case.
@Suite struct CustomerIsolationTests {
    let h: ServerAPIHarness

    init() throws { h = try ServerAPIHarness() }

    /// Buys `id` for the customer `name`.
    @discardableResult
    func buy(_ id: String, for name: String) throws -> Transaction {
        let customer = h.session.forAccount(name)
        let result = try customer.purchase(
            try customer.quote(try PurchaseRequest(productID: id), in: h.catalog), in: h.catalog
        ).result
        guard case .purchased(let transaction) = result else {
            Issue.record("expected a purchase, got \(result)")
            throw CancellationError()
        }
        return transaction
    }

    /// `"transactionId":"+1"` passed one parse (`UInt64` reads the sign) and failed the
    /// customer filter's (digits only), which then filtered nobody: every customer's
    /// notifications came back. One digits-only parse: 4000006.
    @Test(arguments: ["+1", " 1", "1 ", "-1", "0", "", "1e3", "０１"])
    func aTransactionIdThatIsNotDigitsIsInvalid(id: String) throws {
        let start = h.clock.now
        try h.buy("fx.coins")
        try buy("fx.coins", for: "bob")
        let end = h.clock.now.addingTimeInterval(60)
        let answer = h.call(
            "POST", "inApps/v1/notifications/history",
            body: NotificationHistoryAPITests.request(start: start, end: end, [("transactionId", .string(id))]))
        #expect(answer.errorCode == 4_000_006, "\(id): \(String(describing: answer.body))")
        #expect(answer.body?["notificationHistory"] == nil)
    }

    @Test func theSameIdWithoutASignNamesOneCustomer() throws {
        let start = h.clock.now
        let own = try h.buy("fx.coins")
        try buy("fx.coins", for: "bob")
        let end = h.clock.now.addingTimeInterval(60)
        let answer = h.call(
            "POST", "inApps/v1/notifications/history",
            body: NotificationHistoryAPITests.request(
                start: start, end: end, [("transactionId", .string(String(own.id)))]))
        #expect(answer.body?["notificationHistory"]?.arrayValue?.count == 1)
    }

    /// A kill inside `accounts remove` (the files gone, the name left), then a purchase under
    /// that name, gave the old transaction identifiers again: a number is never given twice.
    /// (A removal marks the name before its files go: that mark and no files is what a kill
    /// leaves now.)
    @Test func aNumberIsNeverGivenTwiceAfterAnInterruptedRemoval() throws {
        let first = try buy("fx.coins", for: "bob")
        let bob = h.session.store.forAccount("bob").location
        var registry = try CustomerRegistry.read(bob.customersPath)
        registry.entries[0].removing = true
        try registry.write(to: bob.customersPath)
        for path in [bob.statePath, bob.journalPath, bob.indexPath] { unlink(path) }
        let again = try buy("fx.coins", for: "bob")
        #expect(again.id != first.id)
        #expect(
            PurchaseState.Account.customerNumber(ofTransaction: again.id)
                > PurchaseState.Account.customerNumber(ofTransaction: first.id))
    }

    /// A removal marks the name first: killed after that, the customer is listed as being
    /// removed, no request reaches it, `accounts remove` finishes it, and its name comes back
    /// with a new number.
    @Test func aHalfRemovedCustomerIsListedAsSuchAndReachesNothing() throws {
        let first = try buy("fx.coins", for: "bob")
        let store = h.session.store
        let path = store.location.customersPath
        var registry = try CustomerRegistry.read(path)
        registry.entries[0].removing = true
        try registry.write(to: path)
        #expect(try store.accountEntries().map(\.condition) == [.removing])
        #expect(try store.accountNames().isEmpty)
        #expect(try store.account(ofTransaction: first.id) == nil, "serve answers for nobody")
        #expect(try h.session.accountSummaries().last?.condition == .removing)
        _ = try store.forAccount("bob").removeAccount()
        #expect(try store.accountEntries().isEmpty)
        let again = try buy("fx.coins", for: "bob")
        #expect(
            PurchaseState.Account.customerNumber(ofTransaction: again.id)
                > PurchaseState.Account.customerNumber(ofTransaction: first.id))
    }

    /// A customer whose number is there and snapshot not is listed as half-added; the next
    /// command for it takes that number, which gave no identifier yet.
    @Test func aHalfAddedCustomerIsListedAsSuch() throws {
        let store = h.session.store.forAccount("bob")
        try store.addAccount()
        unlink(store.location.statePath)
        #expect(try h.session.store.accountEntries().map(\.condition) == [.adding])
        #expect(try h.session.accountSummaries().map(\.condition) == [.complete, .adding])
        let bought = try buy("fx.coins", for: "bob")
        #expect(PurchaseState.Account.customerNumber(ofTransaction: bought.id) == 1)
        #expect(try h.session.store.accountEntries().map(\.condition) == [.complete])
    }

    /// On a case-insensitive file system `Bob` and `bob` are one folder: `accounts remove
    /// bob` deleted Bob's history. Names compare without case, and a removal needs a name the
    /// registry holds. (The folder's alias stands for what such a file system does.)
    @Test func namesThatDifferInCaseNeverShareAHistory() throws {
        try buy("fx.coins", for: "Bob")
        let store = h.session.store
        #expect(throws: StateError.accountNameTaken(name: "bob", existing: "Bob")) {
            try store.forAccount("bob").addAccount()
        }
        let bob = store.forAccount("Bob").location
        let alias = store.forAccount("bob").location
        try FileManager().createSymbolicLink(atPath: alias.accountDirectory, withDestinationPath: bob.accountDirectory)
        #expect(throws: StateError.self) { _ = try store.forAccount("bob").removeAccount() }
        // Every other command under the other spelling reaches Bob's folder, and is refused.
        #expect(throws: StateError.accountNameTaken(name: "bob", existing: "Bob")) { try buy("fx.coins", for: "bob") }
        #expect(throws: StateError.accountNameTaken(name: "bob", existing: "Bob")) {
            _ = try store.forAccount("bob").read()
        }
        #expect(FileSystem.exists(bob.statePath) && FileSystem.exists(bob.journalPath), "Bob's history is there")
        #expect(try store.accountNames() == ["Bob"])
    }

    /// The registry is read to check a name's spelling only where the folder reached may be
    /// another spelling's: a link, or a file system that folds case (here the swapped-case
    /// name is made to reach the same folder, as such a file system does). A plain folder on
    /// a file system that tells case apart needs no reading; that is what keeps `status` for
    /// one of a thousand customers as fast as for the one customer of a store.
    @Test func onlyAFolderThatMayBeAnotherSpellingsIsChecked() throws {
        try buy("fx.coins", for: "Bob")
        let accounts = h.session.store.location.accountsDirectory
        guard !FileManager().fileExists(atPath: accounts + "/bOB") else {
            // This file system folds case (macOS's, by default): every name is checked.
            #expect(StateStore.mayReachAnotherSpelling(accounts + "/Bob"))
            return
        }
        #expect(!StateStore.mayReachAnotherSpelling(accounts + "/Bob"))
        try FileManager().createDirectory(atPath: accounts + "/42", withIntermediateDirectories: false)
        #expect(!StateStore.mayReachAnotherSpelling(accounts + "/42"), "no letter has another case")
        try FileManager().createSymbolicLink(atPath: accounts + "/bOB", withDestinationPath: accounts + "/Bob")
        #expect(StateStore.mayReachAnotherSpelling(accounts + "/Bob"), "as on a file system that folds case")
        #expect(StateStore.mayReachAnotherSpelling(accounts + "/bOB"), "a link")
        #expect(StateStore.mayReachAnotherSpelling(accounts + "/nobody"), "no folder: left to the reader")
        // Bob still reads his own snapshot: the check runs and finds his own name.
        #expect(try h.session.store.forAccount("Bob").read().account.transactionCount == 1)
    }

    /// `serve` answered nobody while `default`'s snapshot was unreadable: it read the settings
    /// through it. The app's settings come from `store.json`; every other customer is answered.
    @Test func everyOtherCustomerIsAnsweredWhileDefaultsSnapshotIsUnreadable() throws {
        try h.buy("fx.coins")
        let bobs = try buy("fx.plus.monthly", for: "bob")
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: h.session.store.location.statePath))
        let answer = h.call("GET", "inApps/v1/transactions/\(bobs.id)")
        #expect(answer.status == 200, "\(String(describing: answer.body))")
        #expect(h.call("GET", "inApps/v1/subscriptions/\(bobs.id)").status == 200)
        let bob = h.session.forAccount("bob")
        let receipt = try bob.appReceipt(
            StoreSession.ReceiptRequest(
                deviceIdentifier: StoreSession.ReceiptRequest.defaultDeviceIdentifier, environment: nil))
        let body = JSONValue.object([
            ("receipt-data", .string(Data(try ServerAPIHarness.identity.signReceipt(receipt)).base64EncodedString()))
        ])
        let endpoint = VerifyReceiptEndpoint(
            session: h.session, signer: StoreSession.Signer(identity: ServerAPIHarness.identity))
        #expect(endpoint.response(method: "POST", body: body.bytes(compact: true))["status"] == .int(0))
    }

    /// A registry whose numbers would overflow their identifiers trapped: refused on read,
    /// naming the file.
    @Test(arguments: [
        #"{"nextNumber": 18446744073709551615, "customers": []}"#,
        #"{"nextNumber": 18446745, "customers": [{"name": "bob", "number": 18446744}]}"#,
        #"{"nextNumber": 0, "customers": []}"#,
        #"{"nextNumber": 3, "customers": [{"name": "bob", "number": 1}, {"name": "BOB", "number": 2}]}"#,
    ])
    func aRegistryThatCannotHoldItsNumbersIsCorrupt(text: String) throws {
        let path = h.session.store.location.customersPath
        try FileManager().createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try h.session.forAccount("carol").addAccount()
        } throws: { error in
            guard case .corrupt(let named, _) = error as? StateError else { return false }
            return named == path
        }
    }
}
