import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// A store of many customers: a schema-4 folder is the customer `default`, losing nothing;
/// each customer's files are its own; identifiers are unique across the store and tell whose
/// they are.
@Suite struct AccountsTests {
    private static let catalogSource = CatalogSource(
        storeKitPath: Support.repositoryRoot + "/catalog/Products.storekit",
        productIDsPath: Support.repositoryRoot + "/catalog/IAPProductIDs.plist")

    /// A copy of the schema-4 state written by iapsim before customers existed (make it
    /// again with that release: Tests/IAPSimKitTests/Fixtures/schema4 lists what it did).
    private func schema4Copy() throws -> String {
        let directory = Support.temporaryDirectory() + "/state"
        try FileManager().createDirectory(atPath: directory, withIntermediateDirectories: true)
        for file in ["purchases.json", "transactions.jsonl", "notifications.jsonl"] {
            try FileManager().copyItem(atPath: Support.fixture("schema4/" + file), toPath: directory + "/" + file)
        }
        return directory
    }

    private func session(_ directory: String, account: String = "default") throws -> (Catalog, StoreSession) {
        let store = StateStore(location: StateLocation(directory: directory, lockTimeout: 5, account: account))
        return try StoreSession.open(
            Self.catalogSource, store: store, storefront: nil, now: { Support.fixedDate }, events: { _ in })
    }

    /// Everything the schema-4 fixture holds, as the customer `default` sees it.
    private func expectFixtureIntact(_ session: StoreSession) throws {
        let state = try session.store.read()
        #expect(state.account.nextTransactionID == 7)
        #expect(state.account.transactionCount == 5)
        #expect(state.account.customerNumber == 0)
        #expect(state.account.appTransactionID == "700001796170397033")
        #expect(state.app.purchasedProductIdentifiers == ["com.example.app.pro.monthly"])
        #expect(state.app.consumables == ["com.example.app.coins100": 1, "com.example.app.gems500": 1])
        #expect(state.simulation.pending.map(\.productID) == ["com.example.app.seasonpass"])
        #expect(state.simulation.unfinishedTransactionIDs == [4, 5])
        #expect(state.simulation.renewals.map(\.originalID) == [1])
        #expect(state.outbox.count == 6)
        let settings = session.defaultSettings.overriding(state.simulation.settings)
        #expect(settings[.storefront] == "GBR")
        #expect(settings[.bundleID] == "com.example.fixture")
        #expect(settings[.environment] == "Production")
        #expect(settings[.appAppleID] == "1234567890")
        #expect(settings.askToBuy)
        #expect(!settings.finishesTransactions)
        let clock = try #require(state.simulation.clock)
        let february = try #require(ISO8601Date.date("2030-02-01T00:00:00Z"))
        #expect(clock.frozen && abs(clock.base.timeIntervalSince(february)) < 1)
        for id in 1...5 { #expect(try session.store.transaction(UInt64(id))?.id == UInt64(id)) }
        #expect(try session.store.transaction(3)?.revocationDate != nil)
        #expect(try session.notifications().count == 6)
    }

    @Test func aSchema4StateIsTheCustomerDefaultLosingNothing() throws {
        let directory = try schema4Copy()
        let (_, session) = try session(directory)
        try expectFixtureIntact(session)
        // Another customer moves the app's state into store.json; default keeps everything.
        try session.forAccount("alice").addAccount()
        #expect(FileSystem.exists(directory + "/store.json"))
        let root = try String(contentsOfFile: directory + "/purchases.json", encoding: .utf8)
        #expect(root.contains("\"schemaVersion\": 5"))
        try expectFixtureIntact(try self.session(directory).1)
        // The app's settings and clock are shared; the customer's are not.
        let alice = try session.forAccount("alice").store.read()
        let settings = session.defaultSettings.overriding(alice.simulation.settings)
        #expect(settings[.bundleID] == "com.example.fixture" && settings[.environment] == "Production")
        #expect(settings[.storefront] == "USA" && !settings.askToBuy)
        #expect(alice.simulation.clock == (try session.store.read()).simulation.clock)
        #expect(alice.account.nextTransactionID == PurchaseState.Account.idsPerCustomer + 1)
    }

    @Test func identifiersAreUniqueAcrossTheStoreAndTellTheirCustomer() throws {
        let directory = Support.temporaryDirectory() + "/state"
        var ids: [String: [UInt64]] = [:]
        var appTransactionIDs: Set<String> = []
        for name in ["default", "alice", "bob"] {
            let (catalog, session) = try session(directory, account: name)
            for product in ["com.example.app.pro.monthly", "com.example.app.book"] {
                let result = try session.buy(try #require(catalog.product(product)), in: catalog)
                ids[name, default: []].append(try #require(result.transaction).id)
            }
            appTransactionIDs.insert(try #require(try session.store.read().account.appTransactionID))
        }
        #expect(ids["default"] == [1, 2])
        #expect(ids["alice"] == [1_000_000_000_001, 1_000_000_000_002])
        #expect(ids["bob"] == [2_000_000_000_001, 2_000_000_000_002])
        #expect(appTransactionIDs.count == 3)  // the same first-use moment, three identifiers
        let store = StateStore(location: StateLocation(directory: directory))
        for (name, list) in ids {
            for id in list { #expect(try store.account(ofTransaction: id) == name) }
        }
        #expect(try store.account(ofTransaction: 9_000_000_000_001) == nil)
        // Each customer finds its own transactions only.
        let alice = store.forAccount("alice")
        #expect(try alice.transaction(1) == nil)
        #expect(try alice.read().hasTransaction(1) == false)
        #expect(try alice.transaction(1_000_000_000_001)?.productID == "com.example.app.pro.monthly")
        // Notifications: the app's outbox, listed per customer.
        let (_, aliceSession) = try session(directory, account: "alice")
        #expect(try aliceSession.notifications().allSatisfy { ids["alice"]!.contains($0.notification.transaction!.id) })
        #expect(try aliceSession.notifications(allAccounts: true).count == 6)
    }

    @Test func aCommandForOneCustomerReadsNothingOfAnother() throws {
        let directory = Support.temporaryDirectory() + "/state"
        let (catalog, alice) = try session(directory, account: "alice")
        _ = try alice.buy(try #require(catalog.product("com.example.app.book")), in: catalog)
        let (defaultCatalog, owner) = try session(directory)
        _ = try owner.buy(try #require(defaultCatalog.product("com.example.app.book")), in: defaultCatalog)
        // default's files made unreadable as state: alice goes on as before.
        for file in ["purchases.json", "transactions.jsonl", "transactions.idx"] {
            try Data("not a state".utf8).write(to: URL(fileURLWithPath: directory + "/" + file))
        }
        _ = try alice.buy(try #require(catalog.product("com.example.app.pro.monthly")), in: catalog)
        #expect(try alice.status().subscriptions.count == 1)
        #expect(try alice.store.transaction(1_000_000_000_002)?.productID == "com.example.app.pro.monthly")
        #expect(throws: StateError.self) { try owner.status() }
    }

    @Test func removingACustomerKeepsItsIdentifiersUsed() throws {
        let directory = Support.temporaryDirectory() + "/state"
        let (catalog, alice) = try session(directory, account: "alice")
        _ = try alice.buy(try #require(catalog.product("com.example.app.book")), in: catalog)
        let removed = try alice.store.removeAccount()
        #expect(removed.contains(directory + "/accounts/alice/purchases.json"))
        #expect(!FileSystem.exists(directory + "/accounts/alice"))
        #expect(try alice.store.accountNames().isEmpty)
        #expect(throws: StateError.unknownAccount(name: "alice")) { try alice.store.removeAccount() }
        #expect(throws: StateError.permanentAccount(name: "default")) {
            try alice.store.forAccount("default").removeAccount()
        }
        // A new alice is a new customer, with a new number.
        let again = try alice.buy(try #require(catalog.product("com.example.app.book")), in: catalog)
        #expect(again.transaction?.id == 2_000_000_000_001)
    }

    @Test(arguments: ["", ".hidden", "../x", "a/b", "sp ace", String(repeating: "a", count: 65), "é"])
    func aNameThatIsNoFileNameIsRefused(name: String) {
        #expect(!AccountName.isValid(name))
        #expect(throws: StateError.self) {
            try StateLocation.resolve(stateDirectory: "/tmp/x", account: name, context: Support.context())
        }
    }

    @Test func theAccountComesFromTheOptionThenTheEnvironment() throws {
        let context = Support.context(environment: ["IAPSIM_ACCOUNT": "bob"])
        #expect(try StateLocation.resolve(stateDirectory: "/tmp/x", context: context).account == "bob")
        #expect(try StateLocation.resolve(stateDirectory: "/tmp/x", account: "al", context: context).account == "al")
        #expect(try StateLocation.resolve(stateDirectory: "/tmp/x", context: Support.context()).account == "default")
        let bad = Support.context(environment: ["IAPSIM_ACCOUNT": "../etc"])
        #expect(throws: StateError.invalidAccountName(value: "../etc", origin: "IAPSIM_ACCOUNT")) {
            try StateLocation.resolve(stateDirectory: "/tmp/x", context: bad)
        }
    }

    /// Names compare without case: `Default` is `default`'s name misspelt, not a new customer.
    @Test func theDefaultCustomersNameInAnotherCaseIsRefused() {
        #expect(throws: StateError.accountNameTaken(name: "Default", existing: "default")) {
            try StateLocation.resolve(stateDirectory: "/tmp/x", account: "Default", context: Support.context())
        }
    }
}
