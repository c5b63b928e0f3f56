import Foundation
import IAPSimHTTP
import Testing

@testable import iapsim

/// Nothing lost: a drain that fails says so in its status and how to post again, and
/// `notifications resend` posts what failed, recorded as attempts like any other.
@Suite struct ResendCommandTests {
    /// A webhook on 127.0.0.1 that answers 200 and counts the POSTs.
    final class Webhook: @unchecked Sendable {
        let server: HTTPServer

        init() throws {
            let box = Counter()
            server = try HTTPServer { _ in
                box.add()
                return .status(.ok)
            }
            counter = box
        }
        private let counter: Counter
        var received: Int { counter.value }
        var url: String { "http://127.0.0.1:\(server.port)/hook" }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    static func attempts(_ harness: Harness) throws -> [[String]] {
        let notifications = try #require(try harness.json("notifications")["notifications"] as? [[String: Any]])
        return notifications.map {
            ($0["sendAttempts"] as? [[String: Any]] ?? []).compactMap { $0["sendAttemptResult"] as? String }
        }
    }

    @Test func aFailedDrainExitsSevenAndResendDeliversItLater() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        let drain = harness.run("listen", "--forward-to", "http://127.0.0.1:9/hook", "--drain", "--timeout", "1")
        #expect(drain.status == 7, "a failed delivery is not a success")
        #expect(drain.stdout.contains("is your webhook running on 127.0.0.1:9?"))
        #expect(drain.stderr.contains("notifications resend --failed --forward-to http://127.0.0.1:9/hook"))
        // Sandbox: Apple never retries, so a later drain posts nothing.
        let webhook = try Webhook()
        defer { webhook.server.stop() }
        #expect(harness.run("listen", "--forward-to", webhook.url, "--drain").status == 0)
        #expect(webhook.received == 0)
        let resend = harness.run("notifications", "resend", "--failed", "--forward-to", webhook.url)
        #expect(resend.status == 0, "\(resend.stderr)")
        #expect(webhook.received == 1)
        #expect(try Self.attempts(harness) == [["SOCKET_ISSUE", "SUCCESS"]], "both attempts recorded")
        let again = harness.run("notifications", "resend", "--failed", "--forward-to", webhook.url)
        #expect(again.status == 0 && webhook.received == 1, "delivered now: nothing more to resend")
    }

    @Test func resendByUUIDPrefixAndUnknownUUIDs() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        _ = harness.run("listen", "--forward-to", "http://127.0.0.1:9/hook", "--drain", "--timeout", "1")
        let uuid = try #require(
            (try harness.json("notifications")["notifications"] as? [[String: Any]])?.first?["notificationUUID"]
                as? String)
        let webhook = try Webhook()
        defer { webhook.server.stop() }
        let unknown = harness.run("notifications", "resend", "00000000", "--forward-to", webhook.url)
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "Error: 00000000: no notification waiting for delivery has this UUID\n")
        let prefix = harness.run("notifications", "resend", String(uuid.prefix(8)), "--forward-to", webhook.url)
        #expect(prefix.status == 0, "\(prefix.stderr)")
        #expect(webhook.received == 1)
    }

    @Test(arguments: [
        ["notifications", "resend", "--forward-to", "http://127.0.0.1:9/"],
        ["notifications", "resend", "--failed"],
        ["notifications", "resend", "x", "--failed", "--forward-to", "http://127.0.0.1:9/"],
        ["notifications", "--failed"],
    ])
    func badResendWordsAreUsageErrors(words: [String]) {
        let result = Harness().run(words)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
    }
}

/// `notifications show` by a UUID prefix, with the signed transaction and renewal info inside
/// decoded too.
@Suite struct NotificationShowTests {
    @Test func aPrefixNamesOneAndTheNestedPayloadsAreDecoded() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        let uuid = try #require(
            (try harness.json("notifications")["notifications"] as? [[String: Any]])?.first?["notificationUUID"]
                as? String)
        let shown = try harness.json("notifications", "show", String(uuid.prefix(6)))
        #expect((shown["transactionInfo"] as? [String: Any])?["productId"] as? String == "com.example.app.pro.monthly")
        #expect((shown["renewalInfo"] as? [String: Any])?["autoRenewStatus"] as? Int == 1)
        let text = harness.run("notifications", "show", String(uuid.prefix(6))).stdout
        #expect(text.contains("signedTransactionInfo, decoded:") && text.contains("signedRenewalInfo, decoded:"))
        #expect(harness.run("notifications", "show", "zzzz").status != 0)
    }
}
