import Foundation
import Testing

@testable import IAPSimKit

/// `ServerFault`: the errors and delays `iapsim serve` answers with, their patterns, and the
/// counts that requests spend under the state lock.
@Suite struct ServerFaultTests {
    @Test(arguments: [
        ("/inApps/v1/transactions/*", "/inApps/v1/transactions/7", true),
        ("/inApps/v1/transactions/*", "/inApps/v1/transactions/7/appAccountToken", false),
        ("/inApps/v1/transactions/*", "/inApps/v1/transactions", false),
        ("/inApps/v*/history/*", "/inApps/v2/history/1", true),
        ("/inApps/v2/**", "/inApps/v2/history/1", true),
        ("/inApps/v2/**", "/inApps/v1/history/1", false),
        ("/inApps/**", "/inApps", true),
        ("/inApps/v1/lookup/A*Z", "/inApps/v1/lookup/ABCZ", true),
        ("/inApps/v1/lookup/A*Z", "/inApps/v1/lookup/ABC", false),
        ("/inApps/v1/lookup/*a*a", "/inApps/v1/lookup/a", false),
    ])
    func patternsMatchSegmentBySegment(_ pattern: String, _ path: String, _ matches: Bool) throws {
        #expect(try EndpointPattern(pattern).matches(path) == matches)
    }

    @Test(arguments: ["", "inApps/*", "/inApps/**/x", "/a b", "/a?x=1", "/in/a**"])
    func badPatternsAreRefused(_ text: String) {
        #expect(throws: ServerFaultError.invalidEndpoint(text)) { try EndpointPattern(text) }
    }

    @Test func errorsAreNamedByCodeOrAppleName() throws {
        #expect(try ServerFault.error(named: "4290000") == .rateLimitExceeded)
        #expect(try ServerFault.error(named: "RateLimitExceeded") == .rateLimitExceeded)
        #expect(try ServerFault.error(named: "generalinternalretryableerror") == .generalInternalRetryable)
        #expect(throws: ServerFaultError.unknownError("4040001")) { try ServerFault.error(named: "4040001") }
        #expect(APIError.rateLimitExceeded.status == 429 && APIError.appNotFoundRetryable.status == 404)
        #expect(APIError.generalInternalRetryable.status == 500)
    }

    @Test func delaysAndCountsAreChecked() throws {
        #expect(
            try ServerFault.delay("2s") == 2 && ServerFault.delay("500ms") == 0.5 && ServerFault.delay("1.5") == 1.5)
        for bad in ["0s", "-1s", "601s", "1e3", "s", "inf", "nan", "2m", "0.0001s", "0.5ms"] {
            #expect(throws: ServerFaultError.invalidDelay(bad)) { try ServerFault.delay(bad) }
        }
        #expect(try ServerFault.count("3") == 3)
        for bad in ["0", "-1", "x", "1000001", ""] {
            #expect(throws: ServerFaultError.invalidCount(bad)) { try ServerFault.count(bad) }
        }
    }

    @Test func aRequestTakesTheFirstMatchingErrorAndDelayAndCountsThemDown() throws {
        var faults = [
            ServerFault(.error(.rateLimitExceeded), remaining: 1, endpoint: try EndpointPattern("/inApps/v1/lookup/*")),
            ServerFault(.error(.generalInternalRetryable), remaining: 2),
            ServerFault(.delay(1.5)),
            ServerFault(.error(.generalInternal)),
        ]
        var outcome = ServerFault.consume(&faults, path: "/inApps/v1/transactions/1")
        #expect(outcome == .init(error: .generalInternalRetryable, delay: 1.5))
        #expect(faults[1].remaining == 1)
        outcome = ServerFault.consume(&faults, path: "/inApps/v1/lookup/X")
        #expect(outcome == .init(error: .rateLimitExceeded, delay: 1.5))
        #expect(faults.count == 3)
        outcome = ServerFault.consume(&faults, path: "/inApps/v1/lookup/X")
        #expect(outcome == .init(error: .generalInternalRetryable, delay: 1.5))
        outcome = ServerFault.consume(&faults, path: "/inApps/v1/lookup/X")
        #expect(outcome == .init(error: .generalInternal, delay: 1.5))
        #expect(faults == [ServerFault(.delay(1.5)), ServerFault(.error(.generalInternal))])
    }

    @Test func armedFaultsReadBackAndACorruptFileIsNamed() throws {
        let store = Support.store()
        let session = StoreSession(store: store, now: { Support.fixedDate })
        #expect(try session.serverFaults() == [])
        let fault = ServerFault(.delay(0.25), remaining: 4, endpoint: try EndpointPattern("/inApps/v2/**"))
        _ = try session.armServerFault(fault)
        _ = try session.armServerFault(ServerFault(.error(.appNotFoundRetryable)))
        #expect(try session.serverFaults() == [fault, ServerFault(.error(.appNotFoundRetryable))])
        #expect(try session.clearServerFaults().count == 2)
        #expect(!FileManager().fileExists(atPath: store.location.serverFaultsPath))
        for bytes in ["{", "{\"armed\": [{\"errorCode\": 4040001}]}", "[]", "{\"armed\": [{\"delaySeconds\": 0}]}"] {
            try Data(bytes.utf8).write(to: URL(fileURLWithPath: store.location.serverFaultsPath))
            #expect(throws: StateError.self) { try session.serverFaults() }
        }
    }

    @Test func concurrentRequestsNeverBothTakeTheLastOfACount() async throws {
        let store = Support.store()
        let session = StoreSession(store: store, now: { Support.fixedDate })
        _ = try session.armServerFault(ServerFault(.error(.rateLimitExceeded), remaining: 5))
        let errors = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    // A store of its own, as each serve thread and process reads the file afresh.
                    try StateStore(location: store.location).consumeServerFaults(path: "/inApps/v1/transactions/1")
                        .error != nil
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(errors == 5)
        #expect(try session.serverFaults() == [])
    }
}
