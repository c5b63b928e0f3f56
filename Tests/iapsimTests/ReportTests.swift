import Foundation
import IAPSimJSON
import IAPSimKit
import Testing

@testable import iapsim

/// The report values and the one renderer: what each command says, independent of the CLI.
@Suite struct ReportTests {
    /// A one-product catalog whose identifier and title carry escape sequences and bidi
    /// controls, as a hostile cloned repository could.
    static func hostileCatalog() throws -> String {
        let folder = FileManager().temporaryDirectory.appendingPathComponent("iapsim-hostile-" + UUID().uuidString).path
        try FileManager().createDirectory(atPath: folder, withIntermediateDirectories: true)
        let storekit = """
            {"identifier":"H","products":[{"displayPrice":"0.99","familyShareable":false,"internalID":"1",\
            "localizations":[{"locale":"en_US","displayName":"Evil\\u001b]0;pwned\\u0007","description":""}],\
            "productID":"fx.\\u001b[31mevil","referenceName":"x","type":"Consumable"}],\
            "settings":{"_storefront":"USA","_locale":"en_US"},"version":{"major":3,"minor":0}}
            """
        try storekit.write(toFile: folder + "/Products.storekit", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func noMessageSendsAControlCharacterToTheTerminal() throws {
        let catalog = try Self.hostileCatalog()
        defer { try? FileManager().removeItem(atPath: catalog) }
        // No catalog folder: --storekit alone requests every product of the file.
        let harness = Harness(environment: ["IAPSIM_CATALOG": ""])
        defer { try? FileManager().removeItem(atPath: harness.stateDirectory) }
        let id = "fx.\u{1B}[31mevil"
        var outputs: [Harness.Result] = []
        for arguments in [
            ["list"], ["buy", id], ["status"], ["transactions"], ["refund", "1"],
            ["buy", id, "--outcome", "ask-to-buy"],
            ["approve", "2"], ["buy", id, "--outcome", "interrupted"], ["decline", "3"], ["resolve", "3"],
            ["buy", "\u{1B}[2Jwiped"], ["expire", id], ["renew", id], ["cancel-subscription", id],
            ["help", "\u{1B}[31m"], ["--\u{1B}[31m"], ["check"],
        ] {
            outputs.append(harness.run(arguments + ["--storekit", catalog + "/Products.storekit"]))
        }
        for output in outputs {
            let text = output.stdout + output.stderr
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(text)")
        }
        #expect(outputs[1].stdout.contains("\\u{1B}"))  // shown, escaped
    }

    @Test func thePromptSaysWhatWillHappen() {
        let harness = Harness()
        defer { try? FileManager().removeItem(atPath: harness.stateDirectory) }
        harness.terminal = true
        harness.answers = ["y"]
        let trial = harness.run("buy", "com.example.app.pro.monthly")
        #expect(trial.stderr.hasPrefix("Start the free week of “Pro, monthly”, then $2.99 a month? [y/N] "))
        #expect(trial.stdout.contains("$0.00 (introductory offer)"))
        harness.answers = ["y", "y"]
        _ = harness.run("buy", "com.example.app.book")
        let again = harness.run("buy", "com.example.app.book")
        #expect(again.stderr.hasPrefix("Download “The Swift Book” again (already purchased, free)? [y/N] "))
    }

    @Test func endOfInputAtThePromptEndsThePromptLine() {
        let harness = Harness()
        defer { try? FileManager().removeItem(atPath: harness.stateDirectory) }
        harness.terminal = true
        let result = harness.run("buy", "com.example.app.book")
        #expect(result.status == 2)
        #expect(result.stderr.contains("? [y/N] \nCancelled: nothing was charged."))
    }

    /// Apple, "Handling subscriptions billing": choosing the current plan again cancels a
    /// downgrade waiting for the next renewal.
    @Test func buyingTheCurrentPlanCancelsAPendingDowngrade() throws {
        let harness = Harness()
        defer { try? FileManager().removeItem(atPath: harness.stateDirectory) }
        #expect(harness.run("buy", "com.example.app.pro.yearly").status == 0)
        #expect(harness.run("buy", "com.example.app.pro.monthly").stdout.contains("at the next renewal"))
        let scheduled = try #require((try harness.json("status")["subscriptions"] as? [[String: Any]])?.first)
        #expect(scheduled["autoRenewProductID"] as? String == "com.example.app.pro.monthly")
        let kept = harness.run("buy", "com.example.app.pro.yearly")
        #expect(kept.status == 0)
        let status = try #require((try harness.json("status")["subscriptions"] as? [[String: Any]])?.first)
        #expect(status["autoRenewProductID"] as? String == "com.example.app.pro.yearly")
    }

    @Test func theIntroOfferIsAdvertisedOnlyWhileTheBuyerIsEligible() throws {
        let harness = Harness()
        defer { try? FileManager().removeItem(atPath: harness.stateDirectory) }
        func monthly() throws -> [String: Any] {
            let products = try #require(try harness.json("list")["products"] as? [[String: Any]])
            let product = try #require(products.first { $0["id"] as? String == "com.example.app.pro.monthly" })
            return try #require(product["subscription"] as? [String: Any])
        }
        #expect(try monthly()["isEligibleForIntroOffer"] as? Bool == true)
        #expect(harness.run("list").stdout.contains("intro: free for 1 week"))
        _ = harness.run("buy", "com.example.app.pro.yearly")
        #expect(try monthly()["isEligibleForIntroOffer"] as? Bool == false)
        #expect(harness.run("list").stdout.contains("intro offer used"))
    }

    @Test func theStreamedJSONHasTheLayoutOfTheWholeValue() {
        let value = JSON.object([
            ("a", .array([.object([("b", .int(1)), ("c", .array([]))]), .string("x\u{1B}")])),
            ("d", .object([])), ("e", .null),
        ])
        var bytes: [UInt8] = []
        var stream = JSONStream { bytes += $0 }
        stream.beginObject()
        stream.beginArray("a")
        stream.value(.object([("b", .int(1)), ("c", .array([]))]))
        stream.value(.string("x\u{1B}"))
        stream.end()
        stream.value(.object([]), "d")
        stream.value(.null, "e")
        stream.finish()
        #expect(bytes == value.bytes() + [0x0A])
    }

    @Test func anErrorIapsimDidNotExpectIsAnInternalError() {
        struct Surprise: Error {}
        let (code, message) = ErrorReport.describe(Surprise())
        #expect(code == .internalError)
        #expect(code.rawValue == 70)
        #expect(message.hasPrefix("Error: internal error: "))
    }

    @Test func clockResetReturnsToRealTimeAfterAnAdvance() {
        let harness = Harness()
        defer { try? FileManager().removeItem(atPath: harness.stateDirectory) }
        #expect(harness.run("clock", "advance", "P1Y").status == 0)
        let reset = harness.run("clock", "reset")
        #expect(reset.status == 0)
        #expect(reset.stdout.hasPrefix("2026-01-15T12:00:00Z"))
    }

    @Test func commandsThatOnlyLookCreateNothing() {
        let harness = Harness()
        for arguments in [["list"], ["status"], ["transactions"], ["clock"], ["settings"]] {
            #expect(harness.run(arguments).status == 0)
        }
        #expect(!FileManager().fileExists(atPath: harness.stateDirectory))
    }
}

/// Help pages compared with their text as a user reads it, not with the tables they are
/// made from.
@Suite struct HelpGoldenTests {
    @Test func exitCodes() {
        #expect(
            HelpText.page(for: .exitCodes) == """
                EXIT CODES:
                  0   success
                  1   the purchase failed with a simulated error (also load products, App Store sync)
                  2   cancelled by the user
                  3   pending: an Ask to Buy request waits for approval (24 hours at most)
                  4   payments not allowed
                  5   product not available (with --as-family-member: not family shareable)
                  6   interrupted: the purchase failed until the buyer resolves its issue ('iapsim resolve ID' makes a new transaction)
                  7   listen --drain, notifications resend: a delivery failed (recorded; 'notifications resend --failed' posts again)
                  64  usage error (unknown command, option or setting; bad value; a transaction not in the needed state)
                  65  bad data: a catalog file or the state file cannot be used
                  66  a catalog file or the state file is missing or cannot be read
                  69  clock exec: libfaketime is not installed (the error says what to install)
                  70  internal error: a bug in iapsim (please report it)
                  73  cannot create the state folder or file, or a file asked for (never through a symlink)
                  74  I/O error: the state could not be written (the previous state is intact), or the output could not be (what the command did is saved); listen stops when it cannot record an attempt
                  75  state busy: another iapsim held the lock past IAPSIM_LOCK_TIMEOUT, or another listen delivers the notifications
                  126 clock exec: the program cannot be run (otherwise clock exec exits with the program's status)
                  127 clock exec: no such program
                """)
    }

    @Test func environment() {
        #expect(
            HelpText.page(for: .environment) == """
                ENVIRONMENT:
                  IAPSIM_CATALOG       Catalog folder, when --catalog is not given.
                  IAPSIM_STATE_DIR     State folder, when --state-dir is not given.
                  IAPSIM_ACCOUNT       The customer commands act for, when --account is not given (default: default).
                  IAPSIM_LOCALE        Price and text locale, when --locale is not given (de_DE, de-DE, de_DE.UTF-8 and de_DE@euro are all accepted).
                  IAPSIM_LOCK_TIMEOUT  Seconds to wait for another iapsim's lock (default 10).
                  IAPSIM_CERTS_DIR     Test certificates to sign with, when --certs is not given (default: the state folder's certs).
                  IAPSIM_LIBFAKETIME   libfaketime for 'clock exec', when not in the usual places (/usr/lib/<arch>/faketime/libfaketime.so.1).
                  XDG_CONFIG_HOME      On Linux the state folder is $XDG_CONFIG_HOME/iapsim when it is an absolute path,
                  HOME                 else $HOME/.config/iapsim (macOS: ~/Library/Application Support/iapsim).
                  NO_COLOR             Set and not empty: no colour or symbols (no-color.org).
                  COLUMNS              Width that tables fit, else the terminal's.
                  TERM                 "dumb": no colour.
                An empty variable counts as unset. LANG and LC_ALL are not read: prices follow the
                catalog's storefront locale unless --locale or IAPSIM_LOCALE says otherwise.
                Also read, as no setting: FAKETIME_TIMESTAMP_FILE, LD_PRELOAD, DYLD_INSERT_LIBRARIES, by an
                iapsim a program under 'clock exec' starts, which then runs itself without libfaketime.
                """)
    }
}

/// Apple, "Product.SubscriptionInfo.RenewalInfo" (`isInBillingRetry`, `expirationReason`,
/// `gracePeriodExpirationDate`) through a billing issue: in the grace period the renewal info
/// is in billing retry with `billingError` and a grace date; after it, still `billingError`,
/// and no grace date.
@Suite struct BillingRetryRenewalInfoTests {
    @Test func renewalInfoFollowsTheGracePeriodThenBillingRetry() throws {
        let harness = Harness()
        defer { try? FileManager().removeItem(atPath: harness.stateDirectory) }
        _ = harness.run("clock", "freeze")
        _ = harness.run("settings", "set", "billing-retry", "true")
        _ = harness.run("settings", "set", "grace-period", "true")
        _ = harness.run("buy", "com.example.app.pro.yearly")
        _ = harness.run("clock", "advance", "P1Y")
        let grace = try #require((try harness.json("status")["subscriptions"] as? [[String: Any]])?.first)
        #expect(grace["state"] as? String == "inGracePeriod")
        #expect(grace["isInBillingRetry"] as? Bool == true)
        #expect(grace["expirationReason"] as? String == "billingError")
        #expect(grace["gracePeriodExpirationDate"] as? String != nil)
        _ = harness.run("clock", "advance", "P20D")
        let retry = try #require((try harness.json("status")["subscriptions"] as? [[String: Any]])?.first)
        #expect(retry["state"] as? String == "inBillingRetryPeriod")
        #expect(retry["isInBillingRetry"] as? Bool == true)
        #expect(retry["expirationReason"] as? String == "billingError")
        #expect(retry["gracePeriodExpirationDate"] is NSNull)
    }
}
