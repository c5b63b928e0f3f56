// An XCTest file as an app's test target writes one: XCTest, StoreKitTest (which brings
// StoreKit and Foundation, as Apple's does) and the app's module, nothing else. It builds in
// the Swift 6 language mode (ProShop's); RageShopTests is the Swift 5 one.
import ProShop
import StoreKitTest
import XCTest

final class PaywallTests: XCTestCase {
    private static let ids = ["com.example.app.pro.monthly", "com.example.app.pro.yearly", "com.example.app.book"]

    private func freshSession() throws -> SKTestSession {
        let session = try SKTestSession(configurationFileNamed: "Shop")
        session.resetToDefaultState()
        session.disableDialogs = true
        session.clearTransactions()
        return session
    }

    func testThePaywallFormatsPeriodsAndTheFreeTrial() async throws {
        _ = try freshSession()
        let products = try await Product.products(for: Self.ids)
        let paywall = await Paywall(products: products)
        XCTAssertEqual(
            paywall.plans.map(\.priceLine).sorted(), ["$2.99 / 1 month", "$24.99 / 1 year"])
        XCTAssertEqual(paywall.plans.first { $0.productID == "com.example.app.pro.monthly" }?.offerLine, "1 week free")
        let monthly = try XCTUnwrap(products.first { $0.id == "com.example.app.pro.monthly" })
        let period = try XCTUnwrap(monthly.subscription?.subscriptionPeriod)
        XCTAssertEqual(period.formatted(monthly.subscriptionPeriodFormatStyle.locale(Locale(identifier: "de_DE"))), "1 Monat")
    }

    func testTheRenewalLineFollowsTheSessionsControls() async throws {
        let session = try freshSession()
        let transaction = try await session.buyProduct(identifier: "com.example.app.pro.monthly")
        let renews = await Paywall.renewalLine(for: transaction)
        XCTAssertEqual(renews, "Renews")
        try session.disableAutoRenewForTransaction(identifier: Int(transaction.id))
        let ends = await Paywall.renewalLine(for: transaction)
        XCTAssertEqual(ends, "Ends at the end of the period")
        XCTAssertEqual(session.allTransactions().first?.autoRenewingEnabled, false)
        try session.enableAutoRenewForTransaction(identifier: Int(transaction.id))
        XCTAssertEqual(session.allTransactions().first?.autoRenewingEnabled, true)
        let book = try await session.buyProduct(identifier: "com.example.app.book")
        let none = await book.subscriptionStatus
        XCTAssertNil(none, "a non-consumable has no subscription status")
    }

    func testAPriceIncreaseWaitsForConsent() async throws {
        let session = try freshSession()
        let transaction = try await session.buyProduct(identifier: "com.example.app.pro.monthly")
        // As in Xcode, the price goes up in the configuration file before consent is asked.
        XCTAssertThrowsError(try session.requestPriceIncreaseConsentForTransaction(identifier: Int(transaction.id)))
        XCTAssertFalse(try XCTUnwrap(session.allTransactions().first).isPendingPriceIncreaseConsent)
        let raised = try SKTestSession(contentsOf: raisedConfiguration(session.configurationURL))
        try raised.requestPriceIncreaseConsentForTransaction(identifier: Int(transaction.id))
        XCTAssertTrue(try XCTUnwrap(raised.allTransactions().first).isPendingPriceIncreaseConsent)
        try raised.consentToPriceIncreaseForTransaction(identifier: Int(transaction.id))
        XCTAssertFalse(try XCTUnwrap(raised.allTransactions().first).isPendingPriceIncreaseConsent)
        XCTAssertTrue(try XCTUnwrap(raised.allTransactions().first).autoRenewingEnabled)
    }

    /// The configuration file with the monthly plan at $3.99, in a folder of its own.
    private func raisedConfiguration(_ original: URL) throws -> URL {
        var file = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: original)) as? [String: Any])
        var groups = try XCTUnwrap(file["subscriptionGroups"] as? [[String: Any]])
        for index in groups.indices {
            var plans = try XCTUnwrap(groups[index]["subscriptions"] as? [[String: Any]])
            for plan in plans.indices where plans[plan]["productID"] as? String == "com.example.app.pro.monthly" {
                plans[plan]["displayPrice"] = "3.99"
            }
            groups[index]["subscriptions"] = plans
        }
        file["subscriptionGroups"] = groups
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("raised-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Shop.storekit")
        try JSONSerialization.data(withJSONObject: file).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return url
    }

    func testSimulatedErrorsForTheSheets() async throws {
        let session = try freshSession()
        try await session.setSimulatedError(.generic(.networkError(URLError(.timedOut))), forAPI: .offerCodeRedeem)
        let redeem = await session.simulatedError(forAPI: .offerCodeRedeem)
        XCTAssertNotNil(redeem)
        try await session.setSimulatedError(.generic(.unknown), forAPI: .manageSubscriptions)
        let manage = await session.simulatedError(forAPI: .manageSubscriptions)
        XCTAssertNotNil(manage)
        try await session.setSimulatedError(nil, forAPI: .manageSubscriptions)
        let cleared = await session.simulatedError(forAPI: .manageSubscriptions)
        XCTAssertNil(cleared)
    }
}
