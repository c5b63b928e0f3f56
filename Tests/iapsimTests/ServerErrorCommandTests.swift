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

    @Test(arguments: [
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
