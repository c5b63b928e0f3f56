import Foundation
import Testing

#if canImport(IAPSimStoreKit)
    import IAPSimStoreKit
    import IAPSimStoreKitTest
#else
    import StoreKit
    import StoreKitTest
#endif

/// Members real apps call, each as Apple declares it.
extension StoreKitAPITests {
    @Suite struct AppleSurfaceTests {
        static let january = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

        @Test(arguments: [
            (1, Product.SubscriptionPeriod.Unit.month, "en_US", "1 month"),
            (1, .year, "en_US", "1 year"), (2, .week, "en_US", "2 weeks"), (3, .day, "en_GB", "3 days"),
            (1, .week, "en_US", "1 week"), (6, .month, "de_DE", "6 Monate"), (1, .month, "ja_JP", "1か月"),
            (1, .year, "fr_FR", "1 an"), (3, .month, "xx_XX", "3 months"),
        ])
        func aPeriodFormatsAsTheAppStoreShowsIt(
            value: Int, unit: Product.SubscriptionPeriod.Unit, locale: String, text: String
        ) {
            let period = Self.period(value, unit)
            let style = Product.SubscriptionPeriodFormatStyle().locale(Locale(identifier: locale))
            #expect(period.formatted(style, referenceDate: Self.january) == text)
            // Whatever day it starts, a month is a month (January 31 to February 28).
            let lastDay = Date(timeIntervalSince1970: 1_769_817_600)  // 2026-01-31
            #expect(
                Self.period(1, .month).formatted(style.locale(Locale(identifier: "en_US")), referenceDate: lastDay)
                    == "1 month")
        }

        @Test func aProductsPeriodStyleIsInItsStorefrontsLocale() async throws {
            let session = try freshSession()
            session.storefront = "DEU"
            defer { session.resetToDefaultState() }
            let product = try #require(try await Product.products(for: ["com.example.app.pro.monthly"]).first)
            let period = try #require(product.subscription?.subscriptionPeriod)
            #expect(period.formatted(product.subscriptionPeriodFormatStyle) == "1 Monat")
            #expect(
                period.dateRange(referenceDate: Self.january).upperBound == Date(timeIntervalSince1970: 1_769_904_000))
        }

        /// `subscriptionStatus` is the group's status for a subscription, nil for anything else.
        @Test func aTransactionsSubscriptionStatus() async throws {
            let session = try freshSession()
            let monthly = try await session.buyProduct(identifier: "com.example.app.pro.monthly")
            let status = try #require(await monthly.subscriptionStatus)
            #expect(status.state == .subscribed)
            #expect(status.transaction.unsafePayloadValue.originalID == monthly.originalID)
            let book = try await session.buyProduct(identifier: "com.example.app.book")
            #expect(await book.subscriptionStatus == nil)
        }

        /// Hosted content is gone: a download started fails, and the observer hears of it.
        @Test func aDownloadStartedFails() async throws {
            _ = try freshSession()
            final class Observer: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
                let downloads = Recorder<SKDownloadState>()
                func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {}
                func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {
                    self.downloads.append(contentsOf: downloads.map(\.state))
                }
            }
            let observer = Observer()
            SKPaymentQueue.default().add(observer)
            defer { SKPaymentQueue.default().remove(observer) }
            let download = SKDownload()
            SKPaymentQueue.default().start([download])
            #expect(await eventually { observer.downloads.values == [.failed] })
            #expect(download.error != nil)
            SKPaymentQueue.default().cancel([download])
            #expect(download.state == .failed, "an ended download is not cancelled")
        }

        /// A consumable the app finished leaves `Transaction.all` and `latest(for:)`, unless it
        /// was refunded.
        @Test func finishedConsumablesLeaveTheHistoryUnlessRefunded() async throws {
            let session = try freshSession()
            let coins = try #require(try await Product.products(for: ["com.example.app.coins100"]).first)
            let purchase = try await coins.purchase()
            guard case .success(let result) = purchase else {
                Issue.record("the purchase did not succeed: \(purchase)")
                return
            }
            let transaction = result.unsafePayloadValue
            #expect(await Transaction.latest(for: coins.id) != nil, "unfinished, it is listed")
            await transaction.finish()
            #expect(await Transaction.latest(for: coins.id) == nil)
            #expect(await Self.all().contains(transaction.id) == false)
            try session.refundTransaction(identifier: Int(transaction.id))
            #expect(await Self.all().contains(transaction.id), "a refunded consumable is listed again")
        }

        static func all() async -> [UInt64] {
            var ids: [UInt64] = []
            for await result in Transaction.all { ids.append(result.unsafePayloadValue.id) }
            return ids
        }

        @Test func anSKErrorBridgesBackFromNSError() {
            let bridged = SKError(.paymentInvalid) as NSError
            #expect(SKError(_nsError: bridged).code == .paymentInvalid)
            #expect(SKError(_nsError: NSError(domain: "Other", code: 3)).code == .unknown)
        }

        static func period(_ value: Int, _ unit: Product.SubscriptionPeriod.Unit) -> Product.SubscriptionPeriod {
            switch (value, unit) {
            case (1, .month): .monthly
            case (1, .year): .yearly
            case (1, .week): .weekly
            case (6, .month): .everySixMonths
            case (3, .month): .everyThreeMonths
            case (2, .week): .everyTwoWeeks
            default: .everyThreeDays
            }
        }
    }
}
