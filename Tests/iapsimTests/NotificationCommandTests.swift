import Foundation
import IAPSimKit
import Testing

@testable import iapsim

/// The notification behaviours as a user meets them on the command line: the warning about
/// Production data without an app Apple ID, price increases Apple would ask consent for,
/// `trigger --list` and the page that documents what it lists.
@Suite struct NotificationCommandTests {
    /// Apple's Production verifier needs the app's Apple ID: data signed for Production
    /// without one is said once, naming the setting.
    @Test func productionDataWithoutAnAppAppleIDWarnsOnceNamingTheSetting() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        #expect(harness.run("renew", "com.example.app.pro.monthly").status == 0)
        let sandbox = harness.run("transactions", "--json", "--jws", "--environment", "Sandbox")
        #expect(sandbox.status == 0 && !sandbox.stderr.contains("app-apple-id"))
        let production = harness.run("transactions", "--json", "--jws", "--environment", "Production")
        #expect(production.status == 0)
        #expect(production.stderr.components(separatedBy: "app-apple-id").count == 2, "\(production.stderr)")
        #expect(harness.run("settings", "set", "app-apple-id", "1234567890").status == 0)
        let withID = harness.run("transactions", "--json", "--jws", "--environment", "Production")
        #expect(!withID.stderr.contains("app-apple-id"))
    }

    /// `price-increase decline` turns auto-renew off, and `status` no longer shows an increase
    /// waiting for consent.
    @Test func decliningAPriceIncreaseTurnsAutoRenewOffAndStatusSaysSo() throws {
        let harness = Harness()
        let product = "com.example.app.pro.monthly"
        #expect(harness.run("buy", product, "--yes").status == 0)
        #expect(harness.run("price-increase", product, "3.99").status == 0)
        #expect(harness.run("status").stdout.contains("waiting for consent"))
        #expect(harness.run("price-increase", "decline", product).status == 0)
        let status = harness.run("status").stdout
        #expect(!status.contains("waiting for consent") && status.contains("expires"))
        let names = try #require(try harness.json("notifications")["notifications"] as? [[String: Any]])
            .map { ($0["notificationType"] as? String ?? "") + "/" + ($0["subtype"] as? String ?? "") }
        #expect(names.last == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
    }

    /// Apple decides by the size of an increase whether it asks consent; one above its limits
    /// announced with --notify-only is the developer's choice, and iapsim says Apple would ask.
    @Test func aNotifyOnlyIncreaseApplesWouldAlwaysAskConsentForWarns() throws {
        let harness = Harness()
        let product = "com.example.app.pro.monthly"
        #expect(harness.run("buy", product, "--yes").status == 0)
        let small = harness.run("price-increase", product, "3.99", "--notify-only")
        #expect(small.status == 0 && !small.stderr.contains("consent"), "\(small.stderr)")
        let large = harness.run("price-increase", product, "9.99", "--notify-only")
        #expect(large.status == 0)
        #expect(large.stderr.contains("Warning: Apple asks the subscriber's consent"), "\(large.stderr)")
        #expect(harness.run("help", "price-increase").stdout.contains("50%"))
    }

    /// `trigger --list` lists what `trigger` can produce, and docs/NOTIFICATIONS.md names each.
    @Test func triggerListAndTheNotificationsPageAgree() throws {
        let harness = Harness()
        let listed = harness.run("trigger", "--list").stdout.split(separator: "\n").map(String.init)
        #expect(listed == StoreSession.triggerable)
        #expect(!listed.contains("OFFER_REDEEMED/RESUBSCRIBE"))
        #expect(listed.contains("RENEWAL_EXTENSION/SUMMARY") && listed.contains("RENEWAL_EXTENSION/FAILURE"))
        let page = try ReadmeTests.read("docs/NOTIFICATIONS.md")
        for name in listed { #expect(page.contains("`\(name)`"), "docs/NOTIFICATIONS.md does not name \(name)") }
        #expect(page.contains("shows the \(listed.count) it can produce"))
        #expect(!page.contains("Not produced yet"))
    }

    /// Every trigger the bundled catalog can serve raises what it names.
    @Test func everyTriggerRaisesItsNotification() throws {
        for name in StoreSession.triggerable {
            let harness = Harness()
            let raised = try harness.json("trigger", name)["notifications"] as? [[String: Any]] ?? []
            let names = raised.map {
                ($0["notificationType"] as? String ?? "") + (($0["subtype"] as? String).map { "/" + $0 } ?? "")
            }
            #expect(names.contains(name), "trigger \(name) raised \(names)")
        }
    }
}
