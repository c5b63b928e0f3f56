import Foundation
import Testing

@testable import iapsim

/// `iapsim server-error` and `iapsim clock exec` as a user types them: what they accept, what
/// they refuse with one line and which exit code.
@Suite struct ServerErrorCommandTests {
    @Test func armingListingAndClearing() throws {
        let harness = Harness()
        #expect(harness.run("server-error").stdout == "Nothing armed.\n")
        #expect(
            harness.run("server-error", "4290000", "--count", "2").stdout
                == "Armed: 4290000 RateLimitExceededError, next 2 requests, every endpoint\n")
        #expect(
            harness.run("server-error", "delay", "250ms", "--endpoint", "/inApps/v2/**").stdout
                == "Armed: delay 0.25s, every request, /inApps/v2/**\n")
        let status = harness.run("status")
        #expect(status.stdout.contains("Server error armed ('iapsim server-error'): delay 0.25s"))
        let settings = try harness.json("settings")
        #expect((settings["serverErrors"] as? [Any])?.count == 2)
        #expect(harness.run("server-error", "clear").stdout == "Cleared 2 armed.\n")
        #expect((try harness.json("status")["serverErrors"] as? [Any])?.isEmpty == true)
    }

    /// `/verifyReceipt`'s transient statuses arm as the API's errors do.
    @Test func armingAVerifyReceiptStatus() throws {
        let harness = Harness()
        #expect(
            harness.run("server-error", "21005", "--count", "2").stdout
                == "Armed: /verifyReceipt status 21005 (receipt server unavailable), next 2 requests, every endpoint\n")
        #expect(
            harness.run("server-error", "21150", "--endpoint", "/verifyReceipt").stdout
                == "Armed: /verifyReceipt status 21150 (internal data access error, is-retryable), every request, "
                + "/verifyReceipt\n")
        let armed = try #require(try harness.json("server-error")["serverErrors"] as? [[String: Any]])
        #expect(armed.count == 2 && armed[0]["receiptStatus"] as? Int == 21005 && armed[0]["isRetryable"] == nil)
        #expect(armed[1]["isRetryable"] as? Bool == true)
    }

    @Test(arguments: [
        ["server-error", "21003"], ["server-error", "21200"], ["server-error", "21005", "--endpoint", "/inApps/**"],
        ["server-error", "4040001"], ["server-error", "delay"], ["server-error", "delay", "0s"],
        ["server-error", "4290000", "--count", "0"], ["server-error", "4290000", "--endpoint", "inApps"],
        ["server-error", "4290000", "5000001"], ["server-error", "clear", "--count", "1"],
        ["server-error", "--endpoint", "/inApps/**"], ["clock", "exec"],
    ])
    func badInputIsAUsageError(_ arguments: [String]) {
        let result = Harness().run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: ") && result.stdout.isEmpty)
    }

    @Test func clockExecWithoutLibfaketimeSaysWhatToSet() {
        let harness = Harness(environment: ["IAPSIM_LIBFAKETIME": "/nonexistent/libfaketime.so.1"])
        let result = harness.run("clock", "exec", "--", "true")
        #expect(result.status == 69)
        #expect(result.stderr == "Error: IAPSIM_LIBFAKETIME=/nonexistent/libfaketime.so.1: no such file\n")
    }
}
