import Foundation
import Testing

import struct IAPSimKit.StateLocation
import struct IAPSimKit.StateStore

#if canImport(IAPSimStoreKit)
    @_spi(IAPSim) import IAPSimStoreKit
    import IAPSimStoreKitTest
#else
    @_spi(IAPSim) import StoreKit
    import StoreKitTest
#endif

/// StoreKit 2's API against iapsim's store, in-process. The store is the process's one
/// (as a device has one account), so the suites that use it run one test at a time.
extension StoreKitAPITests {
    @Suite struct StoreKit2Tests {
        @Test func productsComeFromTheStoreKitFileInTheRequestedOrderWithoutUnknownIdentifiers() async throws {
            _ = try freshSession()
            let products = try await Product.products(for: [
                "com.example.app.pro.monthly", "com.example.app.book", "no.such.product",
            ])
            #expect(products.map(\.id) == ["com.example.app.pro.monthly", "com.example.app.book"])
            let book = try #require(products.last)
            #expect(book.type == .nonConsumable)
            #expect(book.displayPrice == "$2.99")
            #expect(book.price == Decimal(string: "2.99"))
            let monthly = try #require(products.first?.subscription)
            #expect(monthly.subscriptionPeriod == .monthly)
            #expect(await monthly.isEligibleForIntroOffer)
        }

        @Test func theAppBuysForTheStoresCustomerItIsConfiguredFor() async throws {
            let session = try freshSession()
            let directory = session.stateDirectory.path
            // As `IAPSIM_ACCOUNT=bob` configures an app's process.
            StoreRuntime.shared.configure(
                StoreRuntime.Configuration(
                    stateDirectory: directory, storeKitPath: session.configurationURL.path, account: "bob"))
            defer { _ = try? freshSession() }
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            guard case .success = try await book.purchase() else {
                Issue.record("the purchase did not succeed")
                return
            }
            #expect(try transactionCount(stateDirectory: directory, account: "bob") == 1)
            #expect(try transactionCount(stateDirectory: directory, account: "default") == 0)
        }

        @Test func aPurchaseIsVerifiedAgainstTheTestRootAndStaysUnfinishedUntilFinished() async throws {
            _ = try freshSession()
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            let result = try await book.purchase()
            guard case .success(.verified(let transaction)) = result else {
                Issue.record("expected a verified success, got \(result)")
                return
            }
            #expect(transaction.productID == "com.example.app.book")
            #expect(transaction.productType == .nonConsumable)
            #expect(transaction.jsonRepresentation.count > 0)
            var unfinished: [UInt64] = []
            for await result in Transaction.unfinished { unfinished.append(result.unsafePayloadValue.id) }
            #expect(unfinished == [transaction.id])
            await transaction.finish()
            unfinished = []
            for await result in Transaction.unfinished { unfinished.append(result.unsafePayloadValue.id) }
            #expect(unfinished.isEmpty)
            var entitled: [String] = []
            for await result in Transaction.currentEntitlements { entitled.append(try result.payloadValue.productID) }
            #expect(entitled == ["com.example.app.book"])
            let latest = await Transaction.latest(for: "com.example.app.book")
            #expect(latest?.unsafePayloadValue.id == transaction.id)
        }

        @Test func aTamperedSignatureDoesNotVerify() async throws {
            _ = try freshSession()
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            guard case .success(let verification) = try await book.purchase() else {
                Issue.record("no transaction")
                return
            }
            let parts = verification.jwsRepresentation.split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            #expect(verification.payloadData.count > 0)
            // The simulated verification error hands every transaction over unverified.
            let session = try SKTestSession(contentsOf: bundledStoreKitFile)
            try await session.setSimulatedError(.verification(.invalidSignature), forAPI: .verification)
            let again = await Transaction.latest(for: "com.example.app.book")
            guard case .unverified(_, let error)? = again else {
                Issue.record("expected unverified, got \(String(describing: again))")
                return
            }
            #expect(error == .invalidSignature)
            try await session.setSimulatedError(nil, forAPI: .verification)
        }

        @Test func askToBuyIsPendingAndTheApprovalArrivesThroughUpdates() async throws {
            let session = try freshSession()
            session.askToBuyEnabled = true
            let updates = Transaction.updates
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            #expect(try await book.purchase() == .pending)
            let pending = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
            try session.approveAskToBuyTransaction(identifier: pending.identifier)
            var iterator = updates.makeAsyncIterator()
            let update = await iterator.next()
            #expect(update?.unsafePayloadValue.productID == "com.example.app.book")
            session.askToBuyEnabled = false
        }

        /// Apple: more than one of something that is not consumable is
        /// `Product.PurchaseError.invalidQuantity` (it came back `productUnavailable`).
        @Test func twoOfANonConsumableIsAnInvalidQuantity() async throws {
            _ = try freshSession()
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            await #expect(throws: Product.PurchaseError.invalidQuantity) {
                try await book.purchase(options: [.quantity(2)])
            }
        }

        @Test func aSimulatedPurchaseErrorIsThrownAsApplesError() async throws {
            let session = try freshSession()
            try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            await #expect(throws: Product.PurchaseError.purchaseNotAllowed) { try await book.purchase() }
            try await session.setSimulatedError(
                .generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .loadProducts)
            await #expect(throws: StoreKitError.self) { try await Product.products(for: ["com.example.app.book"]) }
            session.resetToDefaultState()
        }

        @Test func aRefundArrivesThroughUpdatesWithItsRevocationDate() async throws {
            let session = try freshSession()
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            guard case .success(let verification) = try await book.purchase() else {
                Issue.record("no transaction")
                return
            }
            let transaction = try verification.payloadValue
            await transaction.finish()
            let updates = Transaction.updates
            try session.refundTransaction(identifier: Int(transaction.id))
            var iterator = updates.makeAsyncIterator()
            let update = await iterator.next()
            #expect(update?.unsafePayloadValue.id == transaction.id)
            #expect(update?.unsafePayloadValue.revocationDate != nil)
            #expect(update?.unsafePayloadValue.revocationType == .fullRefund)
            #expect(transaction.revocationType == nil)
            var entitled: [String] = []
            for await result in Transaction.currentEntitlements { entitled.append(result.unsafePayloadValue.productID) }
            #expect(entitled.isEmpty)
        }

        @Test func aSubscriptionRenewsAndExpiresWithStatusAndRenewalInfo() async throws {
            let session = try freshSession()
            let monthly = try #require(try await Product.products(for: ["com.example.app.pro.monthly"]).first)
            guard case .success(.verified(let first)) = try await monthly.purchase() else {
                Issue.record("no transaction")
                return
            }
            await first.finish()
            let updates = Transaction.updates
            try session.forceRenewalOfSubscription(productIdentifier: "com.example.app.pro.monthly")
            var iterator = updates.makeAsyncIterator()
            let renewal = try #require(await iterator.next()).unsafePayloadValue
            #expect(renewal.originalID == first.id)
            #expect(renewal.reason == .renewal)
            var statuses = try await monthly.subscription?.status ?? []
            #expect(statuses.first?.state == .subscribed)
            let info = try #require(statuses.first?.renewalInfo)
            guard case .verified(let renewalInfo) = info else {
                Issue.record("renewal info did not verify")
                return
            }
            #expect(renewalInfo.currentProductID == "com.example.app.pro.monthly")
            #expect(renewalInfo.willAutoRenew)
            try session.expireSubscription(productIdentifier: "com.example.app.pro.monthly")
            statuses = try await monthly.subscription?.status ?? []
            #expect(statuses.first?.state == .expired)
        }

        @Test func anInterruptedPurchaseIsPendingAndArrivesThroughUpdatesOnceResolved() async throws {
            let session = try freshSession()
            session.interruptedPurchasesEnabled = true
            let updates = Transaction.updates
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            #expect(try await book.purchase() == .pending)
            let interrupted = try #require(session.allTransactions().first { $0.hasPurchaseIssue })
            session.interruptedPurchasesEnabled = false
            try session.resolveIssueForTransaction(identifier: interrupted.identifier)
            var iterator = updates.makeAsyncIterator()
            let update = await iterator.next()
            #expect(update?.unsafePayloadValue.productID == "com.example.app.book")
        }

        @Test func aPurchaseThroughTheAPIIsInTheStoreAsABuyIs() async throws {
            let session = try freshSession()
            let book = try #require(try await Product.products(for: ["com.example.app.book"]).first)
            guard case .success(.verified(let transaction)) = try await book.purchase() else {
                Issue.record("no transaction")
                return
            }
            let store = StateStore(location: StateLocation(directory: session.stateDirectory.path))
            let notified = try store.notificationRecords().compactMap { record -> UInt64? in
                if case .notification(let notification) = record { return notification.transaction?.id }
                return nil
            }
            #expect(notified.contains(transaction.id))
            let saved = try store.transaction(transaction.id)
            #expect(saved?.productID == "com.example.app.book")
        }

        @Test func syncStorefrontAndAppTransaction() async throws {
            let session = try freshSession()
            try await AppStore.sync()
            #expect(AppStore.canMakePayments)
            #expect(await Storefront.current?.countryCode == "USA")
            session.storefront = "JPN"
            #expect(await Storefront.current?.countryCode == "JPN")
            let app = try await AppTransaction.shared
            guard case .verified(let appTransaction) = app else {
                Issue.record("app transaction did not verify")
                return
            }
            #expect(!appTransaction.bundleID.isEmpty)
            session.resetToDefaultState()
        }
    }
}
