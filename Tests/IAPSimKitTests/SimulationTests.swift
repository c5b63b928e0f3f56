import Foundation
import Testing

@testable import IAPSimKit

/// One test per path an app must handle, in-process, on a clock the test moves.
@Suite struct SimulationTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession

    init() throws {
        catalog = try Catalog.load(CatalogSource(storeKitPath: Support.fixture("valid.storekit"), productIDsPath: nil))
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func product(_ id: String) throws -> Product { try catalog.purchasableProduct(id) }

    private func buy(_ id: String, _ outcome: StoreSession.Outcome? = nil) throws -> StoreSession.PurchaseResult {
        try session.buy(try product(id), in: catalog, outcome: outcome)
    }

    private func subscription(_ id: String) throws -> AccountStatus.SubscriptionStatus {
        try #require(try session.status().subscriptions.first { $0.productID == id })
    }

    // MARK: Outcomes

    @Test func cancelAndFailLeaveNoTransaction() throws {
        #expect(try buy("fx.levels", .cancel) == .cancelled)
        let error = try #require(SimulatedError.named("cloudServiceNetworkConnectionFailed"))
        #expect(error.code == 7)
        #expect(try buy("fx.levels", .fail(error)) == .failed(error))
        #expect(try session.store.transactions().isEmpty)
        #expect(try session.store.read().app.purchasedProductIdentifiers.isEmpty)
    }

    @Test func aPurchaseErrorSettingFailsEveryPurchaseUntilReset() throws {
        _ = try session.setSetting(.purchaseError, to: "SKError.invalidOfferPrice")
        guard case .failed(let error) = try buy("fx.coins") else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == 14)
        _ = try session.resetSettings(.purchaseError)
        #expect(try buy("fx.coins").transaction != nil)
    }

    @Test func paymentsNotAllowedIsPaymentNotAllowed() throws {
        _ = try session.setSetting(.paymentsAllowed, to: "false")
        guard case .failed(let error) = try buy("fx.coins") else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.name == "paymentNotAllowed")
        #expect(error.kind == .notAllowed)
    }

    @Test func errorsAreNamedAndNumberedAsApple() {
        #expect(SimulatedError.named("0")?.name == "unknown")
        #expect(SimulatedError.named("5")?.name == "storeProductNotAvailable")
        #expect(SimulatedError.named("StoreKitError.unknown")?.domain == .storeKitError)
        #expect(SimulatedError.named("notAvailableInStorefront")?.kind == .notAvailable)
        #expect(SimulatedError.named("invalidQuantity")?.domain == .purchaseError)
        #expect(SimulatedError.named("nonsense") == nil)
    }

    // MARK: Ask to Buy and interrupted purchases

    @Test func askToBuyWaitsForApproval() throws {
        guard case .pending(let pending) = try buy("fx.levels", .askToBuy) else {
            Issue.record("not pending")
            return
        }
        #expect(pending.reason == .askToBuy)
        #expect(try session.store.transactions().isEmpty)
        #expect(try session.status().pending.map(\.id) == [pending.id])
        let approved = try #require(try session.approve(pending.id, in: catalog).transaction)
        #expect(approved.id == pending.id)
        #expect(try session.store.read().app.purchasedProductIdentifiers == ["fx.levels"])
        #expect(try session.status().pending.isEmpty)
        #expect(throws: SimulationError.self) { try session.approve(pending.id, in: catalog) }
    }

    @Test func askToBuyDeclinedBuysNothing() throws {
        guard case .pending(let pending) = try buy("fx.coins", .askToBuy) else {
            Issue.record("not pending")
            return
        }
        #expect(try session.decline(pending.id).productID == "fx.coins")
        let state = try session.store.read()
        #expect(state.account.transactionCount == 0)
        #expect(state.app.consumables.isEmpty)
    }

    @Test func anInterruptedPurchaseCannotBeApproved() throws {
        guard case .interrupted(let interrupted) = try buy("fx.coins", .interrupted) else {
            Issue.record("not interrupted")
            return
        }
        #expect(
            throws: SimulationError.wrongState(
                id: interrupted.id, detail: "is an interrupted purchase: use 'iapsim resolve \(interrupted.id)'")
        ) {
            try session.approve(interrupted.id, in: catalog)
        }
    }

    @Test func catalogSettingsAreTheDefaults() throws {
        let store = try StoreKitConfiguration.load(path: Support.fixture("session-defaults.storekit"))
        let settings = SessionSettings(catalog: store.settings, overrides: SettingOverrides())
        #expect(settings.askToBuy)
        #expect(settings.timeRate == .oneRenewalEveryTwoSeconds)
        #expect(settings.simulatedError(.purchaseError)?.qualifiedName == "StoreKitError.unknown")
        #expect(settings.simulatedError(.loadProductsError) == nil)
        #expect(settings.source(of: .askToBuy) == .catalog)
        #expect(settings.source(of: .paymentsAllowed) == .builtIn)
        #expect(!settings.gracePeriod)  // no effect while billing retry is off
        var overrides = SettingOverrides()
        try overrides.set(.askToBuy, text: "false")
        let overridden = SessionSettings(catalog: store.settings, overrides: overrides)
        #expect(!overridden.askToBuy)
        #expect(overridden.source(of: .askToBuy) == .set)
    }

    @Test func badSettingsAreRefused() {
        #expect(throws: SettingsError.self) { try session.setSetting(.askToBuy, to: "maybe") }
        #expect(throws: SettingsError.self) { try session.setSetting(.purchaseError, to: "oops") }
        #expect(throws: SettingsError.self) { try session.setSetting(.timeRate, to: "warp") }
    }

    // MARK: Unfinished transactions

    @Test func manualFinishingLeavesTransactionsUnfinishedUntilFinished() throws {
        _ = try session.setSetting(.finishTransactions, to: "manual")
        let transaction = try #require(try buy("fx.coins").transaction)
        #expect(try session.status().unfinishedTransactionIDs == [transaction.id])
        try session.finish(transaction.id)
        #expect(try session.status().unfinishedTransactionIDs.isEmpty)
        #expect(throws: SimulationError.notUnfinished(id: transaction.id)) { try session.finish(transaction.id) }
        #expect(throws: SimulationError.unknownTransaction(id: 99)) { try session.finish(99) }
    }

    // MARK: Refunds

    @Test func refundingANonConsumableRevokesIt() throws {
        let transaction = try #require(try buy("fx.levels").transaction)
        let refunded = try session.refund(transaction.id, reason: .developerIssue)
        #expect(refunded.revocationDate == Support.fixedDate)
        #expect(refunded.revocationReason == .developerIssue)
        #expect(try session.store.read().app.purchasedProductIdentifiers.isEmpty)
        #expect(try session.restore().productIDs.isEmpty)
        #expect(throws: SimulationError.alreadyRevoked(id: transaction.id)) {
            try session.refund(transaction.id, reason: .other)
        }
        // Bought again after a refund, it is a new purchase, not a re-download.
        guard case .purchased = try buy("fx.levels") else {
            Issue.record("expected a new purchase")
            return
        }
    }

    @Test func refundingAConsumableTakesItOffTheBalance() throws {
        _ = try session.buy(try product("fx.coins"), quantity: 3, in: catalog)
        let second = try #require(try buy("fx.coins").transaction)
        _ = try session.refund(second.id, reason: .other)
        #expect(try session.store.read().app.consumables["fx.coins"] == 3)
        _ = try session.refund(1, reason: .other)
        #expect(try session.store.read().app.consumables["fx.coins"] == 0)
    }

    @Test func refundingASubscriptionRevokesItAndStopsRenewals() throws {
        let transaction = try #require(try buy("fx.plus.yearly").transaction)
        _ = try session.refund(transaction.id, reason: .other)
        #expect(try subscription("fx.plus.yearly").state == .revoked)
        clock.advance(days: 800)
        #expect(try session.store.transactions().count == 1)
        #expect(try session.status().entitlements.isEmpty)
    }

    // MARK: Subscriptions over time

    @Test func aMonthlySubscriptionRenewsForAYear() throws {
        let first = try #require(try buy("fx.plus.monthly").transaction)  // one free week first
        _ = try session.advanceClock(by: DateComponents(year: 1))
        let chain = try session.store.transactions().filter { $0.originalID == first.id }
        #expect(chain.count == 13)
        #expect(chain.dropFirst().allSatisfy { $0.reason == .renewal && $0.price == Decimal(string: "2.99") })
        #expect(Support.iso(chain[1].purchaseDate) == "2026-01-22T12:00:00Z")
        #expect(Support.iso(chain.last!.expirationDate!) == "2027-01-22T12:00:00Z")
        #expect(try subscription("fx.plus.monthly").state == .subscribed)
    }

    @Test func expireAndRenewOnDemand() throws {
        _ = try buy("fx.plus.yearly")
        _ = try session.expireSubscription("fx.plus.yearly")
        #expect(try subscription("fx.plus.yearly").state == .expired)
        let renewal = try session.renewSubscription("fx.plus.yearly")
        #expect(renewal.reason == .renewal)
        #expect(try subscription("fx.plus.yearly").state == .subscribed)
        #expect(throws: SimulationError.notSubscribed(productID: "fx.levels")) {
            try session.expireSubscription("fx.levels")
        }
    }

    @Test func billingRetryThenRecovery() throws {
        _ = try session.setSetting(.billingRetry, to: "true")
        let first = try #require(try buy("fx.plus.yearly").transaction)
        clock.advance(days: 370)
        #expect(try subscription("fx.plus.yearly").state == .inBillingRetryPeriod)
        #expect(try session.status().entitlements.isEmpty)
        guard case .recovered(let renewal) = try session.resolve(first.id, in: catalog) else {
            Issue.record("not recovered")
            return
        }
        #expect(renewal.purchaseDate == clock.now)  // past any grace period: a new period from now
        #expect(try subscription("fx.plus.yearly").state == .subscribed)
    }

    @Test func gracePeriodKeepsAccessThenBillingRetryRunsOut() throws {
        _ = try session.setSetting(.billingRetry, to: "true")
        _ = try session.setSetting(.gracePeriod, to: "true")
        _ = try buy("fx.plus.yearly")
        clock.advance(days: 366)
        #expect(try subscription("fx.plus.yearly").state == .inGracePeriod)
        #expect(try session.status().isEntitled(to: "fx.plus.yearly"))
        clock.advance(days: 20)
        #expect(try subscription("fx.plus.yearly").state == .inBillingRetryPeriod)
        clock.advance(days: 60)
        let expired = try subscription("fx.plus.yearly")
        #expect(expired.state == .expired)
        #expect(expired.expirationReason == .billingError)
    }

    @Test func upgradeIsImmediateAndDowngradeWaitsForRenewal() throws {
        let monthly = try #require(try buy("fx.plus.monthly").transaction)
        let yearlyProduct = try #require(catalog.store.products.first { $0.id == "fx.plus.yearly" })
        let yearly = try #require(try session.buy(yearlyProduct, in: catalog).transaction)
        #expect(yearly.originalID == monthly.originalID)
        #expect(try session.status().entitlements.map(\.productID) == ["fx.plus.yearly"])
        guard case .downgradeScheduled = try buy("fx.plus.monthly") else {
            Issue.record("expected a scheduled downgrade")
            return
        }
        #expect(try session.status().entitlements.map(\.productID) == ["fx.plus.yearly"])
        clock.advance(days: 366)
        #expect(try session.status().entitlements.map(\.productID) == ["fx.plus.monthly"])
    }

    @Test func fixedTimeRatesRenewEveryFewSeconds() throws {
        _ = try session.setSetting(.timeRate, to: "oneRenewalEveryTwoSeconds")
        let first = try #require(try buy("fx.plus.yearly").transaction)
        #expect(first.expirationDate == first.purchaseDate + 2)
        clock.advance(days: 10.0 / 86_400)
        #expect(try session.status().transactionCount == 6)
    }

    /// Apple, "SKTestSession.TimeRate.monthlyRenewalEveryThirtySeconds": each period has its
    /// own real duration (a week 10 s, a month 30 s, a year 6 min; grace 9 s for weekly
    /// subscriptions and 15 s for others; billing retry 1 min) and dates stay on the wall
    /// clock: a one-time purchase is dated now, not in a sped-up future.
    @Test func monthlyRenewalRatesFollowApplesTableOnTheWallClock() throws {
        _ = try session.setSetting(.timeRate, to: "monthlyRenewalEveryThirtySeconds")
        let coins = try #require(try buy("fx.coins").transaction)
        #expect(coins.purchaseDate == clock.now)
        let trial = try #require(try buy("fx.plus.monthly").transaction)  // a free week first
        #expect(trial.expirationDate == trial.purchaseDate + 10)
        clock.advance(days: 10.0 / 86_400)
        _ = try session.status()  // time brought up to date
        let renewal = try #require(try session.store.transactions().last)
        #expect(renewal.reason == .renewal && renewal.purchaseDate == trial.purchaseDate + 10)
        #expect(renewal.expirationDate == renewal.purchaseDate + 30)
        clock.advance(days: 60.0 / 86_400)  // a real minute: two more monthly periods
        #expect(try session.status().transactionCount == 5)

        let rate = TimeRate.monthlyRenewalEveryThirtySeconds
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let periods: [(SubscriptionPeriod, TimeInterval)] = [
            (.init(value: 1, unit: .week), 10), (.init(value: 1, unit: .month), 30),
            (.init(value: 2, unit: .month), 60),
            (.init(value: 3, unit: .month), 90), (.init(value: 6, unit: .month), 180),
            (.init(value: 1, unit: .year), 360),
        ]
        for (period, seconds) in periods { #expect(rate.end(of: period, from: start) == start + seconds, "\(period)") }
        #expect(rate.gracePeriod(for: .init(value: 1, unit: .week)) == 9)
        #expect(rate.gracePeriod(for: .init(value: 1, unit: .month)) == 15)
        #expect(rate.billingRetryPeriod == 60)
        #expect(rate.clockSpeed == 1)
    }

    /// Apple's tables for the other monthly-renewal rates ("SKTestSession.TimeRate.<case>").
    @Test(arguments: [
        (TimeRate.monthlyRenewalEveryHour, [900.0, 3_600, 7_200, 10_800, 21_600, 43_200], 771.0, 1_800.0, 7_200.0),
        (.monthlyRenewalEveryThirtyMinutes, [600, 1_800, 3_600, 5_400, 10_800, 21_600], 514, 900, 3_600),
        (.monthlyRenewalEveryFifteenMinutes, [300, 900, 1_800, 2_700, 5_400, 10_800], 257, 450, 1_800),
        (.monthlyRenewalEveryFiveMinutes, [180, 300, 600, 900, 1_800, 3_600], 154, 150, 600),
    ])
    func monthlyRenewalRatesHaveApplesDurations(
        rate: TimeRate, periods: [Double], weeklyGrace: Double, grace: Double, retry: Double
    ) {
        let lengths: [SubscriptionPeriod] = [
            .init(value: 1, unit: .week), .init(value: 1, unit: .month), .init(value: 2, unit: .month),
            .init(value: 3, unit: .month), .init(value: 6, unit: .month), .init(value: 1, unit: .year),
        ]
        #expect(lengths.map { rate.renewalDuration(of: $0) } == periods)
        #expect(rate.gracePeriod(for: lengths[0]) == weeklyGrace)
        #expect(rate.gracePeriod(for: lengths[1]) == grace)
        #expect(rate.billingRetryPeriod == retry)
    }

    @Test func acceleratedRatesSpeedTheClock() throws {
        _ = try session.setSetting(.timeRate, to: "oneSecondIsOneDay")
        let before = try session.clockReading().now
        clock.advance(days: 30.0 / 86_400)  // 30 real seconds
        let after = try session.clockReading().now
        #expect(after.timeIntervalSince(before) == 30 * 86_400)
    }

    // MARK: The clock

    @Test func theClockMovesForwardOnly() throws {
        let start = try session.clockReading().now
        let moved = try session.advanceClock(by: DateComponents(month: 1))
        #expect(Support.iso(moved) == "2026-02-15T12:00:00Z")
        #expect(throws: ClockError.self) { try session.setClock(to: start) }
        _ = try session.freezeClock(true)
        clock.advance(days: 5)
        #expect(try session.clockReading().now == moved)
        #expect(
            ISODuration.components("P1Y2M3DT4H5M6S")
                == DateComponents(year: 1, month: 2, day: 3, hour: 4, minute: 5, second: 6))
        #expect(ISODuration.components("P2W")?.day == 14)
        for bad in ["", "P", "1M", "PT", "P1H", "PxM", "P1M2"] { #expect(ISODuration.components(bad) == nil, "\(bad)") }
    }
}

extension SimulationTests {
    @Test func aForcedRenewalEndsTheCurrentPeriodAndAppliesAScheduledDowngrade() throws {
        _ = try buy("fx.plus.yearly")
        guard case .downgradeScheduled = try buy("fx.plus.monthly") else {
            Issue.record("no downgrade")
            return
        }
        let renewal = try session.renewSubscription("fx.plus.yearly")
        #expect(renewal.productID == "fx.plus.monthly")
        let status = try session.status()
        #expect(status.entitlements.map(\.productID) == ["fx.plus.monthly"])  // one level of the group at a time
        #expect(
            try session.store.transactions().first { $0.productID == "fx.plus.yearly" }?.expirationDate == clock.now)
    }
}

/// Apple, "SKTestFailures": each StoreKit API fails only with the errors Apple allows it, and
/// each one iapsim has an operation for fails there.
@Suite struct StoreKitTestFailureTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession

    init() throws {
        catalog = try Support.validCatalog()
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func buy(_ id: String) throws -> StoreSession.Receipt {
        let product = try #require(catalog.store.products.first { $0.id == id })
        return try session.purchase(try session.quote(PurchaseRequest(productID: product.id), in: catalog), in: catalog)
    }

    @Test func eachAPITakesOnlyTheErrorsAppleAllowsIt() throws {
        // Purchase: StoreKitError, Product.PurchaseError, and failureError's SKError codes.
        #expect(try SettingKey.purchaseError.canonicalValue("networkError") == "StoreKitError.networkError")
        #expect(
            try SettingKey.purchaseError.canonicalValue("invalidQuantity") == "Product.PurchaseError.invalidQuantity")
        #expect(try SettingKey.purchaseError.canonicalValue("0") == "SKError.unknown")
        #expect(throws: SettingsError.self) { try SettingKey.purchaseError.canonicalValue("SKError.paymentInvalid") }
        // Load Products: StoreKitError only; a bare `unknown` is StoreKitError's.
        #expect(try SettingKey.loadProductsError.canonicalValue("unknown") == "StoreKitError.unknown")
        #expect(throws: SettingsError.self) { try SettingKey.loadProductsError.canonicalValue("invalidQuantity") }
        // Verification: VerificationResult.VerificationError only.
        #expect(
            try SettingKey.verificationError.canonicalValue("invalidSignature")
                == "VerificationResult.VerificationError.invalidSignature")
        #expect(throws: SettingsError.self) { try SettingKey.verificationError.canonicalValue("networkError") }
        // Refund Request: StoreKitError or Transaction.RefundRequestError.
        #expect(
            try SettingKey.refundRequestError.canonicalValue("duplicateRequest")
                == "Transaction.RefundRequestError.duplicateRequest")
        #expect(StoreKitTestAPI.allCases.map(\.fileName).count == 9)
    }

    @Test func aVerificationErrorHandsTheTransactionOverUnverified() throws {
        _ = try session.setSetting(.verificationError, to: "invalidSignature")
        let receipt = try buy("fx.levels")
        #expect(receipt.verificationError?.name == "invalidSignature")
        let transaction = try #require(receipt.result.transaction)
        // The app grants nothing and leaves it unfinished ("Verifying transactions").
        #expect(try session.store.read().app.purchasedProductIdentifiers.isEmpty)
        #expect(receipt.unfinishedTransactionIDs.contains(transaction.id))
        #expect(try session.history().verificationError?.name == "invalidSignature")
        _ = try session.resetSettings(.verificationError)
        #expect(try session.restore().productIDs == ["fx.levels"])
    }

    @Test func aSubscriptionStatusErrorFailsTheAppsViewOnly() throws {
        _ = try session.setSetting(.subscriptionStatusError, to: "networkError")
        #expect(try session.status(launchingTheApp: true).subscriptionStatusError?.name == "networkError")
        #expect(try session.status().subscriptionStatusError == nil)  // the server side
    }

    @Test func anAppTransactionErrorFailsAppTransactionShared() throws {
        let identity = try SigningIdentity.loadOrCreate(in: Support.temporaryDirectory() + "/certs", lockTimeout: 5)
        let signer = StoreSession.Signer(identity: identity)
        _ = try session.setSetting(.appTransactionError, to: "notEntitled")
        #expect(throws: SimulationError.self) { try session.appTransaction(signer: signer) }
        #expect(try !session.signedAppTransaction(signer: signer).jws.isEmpty)  // the server API's
    }

    @Test func aRefundRequestErrorFailsTheRefundSheet() throws {
        let transaction = try #require(try buy("fx.levels").result.transaction)
        _ = try session.setSetting(.refundRequestError, to: "failed")
        #expect(throws: SimulationError.self) { try session.requestRefund(transaction.id, reason: nil) }
        _ = try session.resetSettings(.refundRequestError)
        #expect(try session.requestRefund(transaction.id, reason: nil).transactionID == transaction.id)
    }

    @Test func aStoreKitFileErrorOutsideItsDomainIsIgnoredWithAWarning() throws {
        let settings = CatalogSettings(
            file: StoreKitConfigurationFile.Settings(storeKitErrors: [
                ("Load Products", true, "invalidQuantity"), ("Purchase", true, "StoreKitError.notEntitled"),
                ("Manage Subscriptions Sheet", true, nil), ("Verification", false, nil),
            ]), locale: nil, storefront: nil)
        #expect(settings.value(for: .purchaseError) == "StoreKitError.notEntitled")
        #expect(settings.value(for: .loadProductsError) == nil)
        #expect(settings.value(for: .verificationError) == "none")
        #expect(settings.ignoredErrors.count == 2)
        #expect(
            settings.ignoredErrors.contains { $0.hasPrefix("Manage Subscriptions Sheet: iapsim has no such sheet") })
    }
}
