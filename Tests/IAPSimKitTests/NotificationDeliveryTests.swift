import Foundation
import IAPSimHTTP
import Testing

@testable import IAPSimKit

/// Every delivery attempt is recorded with Apple's `sendAttemptResult` ("Get Notification
/// History", `sendAttemptResult`), whatever the POST ran into: the HTTP client knows only why it
/// failed, the library names it as Apple does.
@Suite struct NotificationDeliveryTests {
    @Test(arguments: [
        (HTTPClient.Failure.timedOut, "TIMED_OUT"), (.socketError, "SOCKET_ISSUE"), (.noResponse, "NO_RESPONSE"),
        (.prematureClose, "PREMATURE_CLOSE"), (.invalidResponse, "INVALID_RESPONSE"),
    ])
    func eachWayAPostFailsHasApplesName(_ failure: HTTPClient.Failure, _ name: String) {
        #expect(DeliveryAttempt.Result(failure).rawValue == name)
    }

    @Test func aRefusedConnectionIsRecordedAsASocketIssue() throws {
        let catalog = try Support.validCatalog()
        let session = StoreSession(
            store: Support.store(), now: { Support.fixedDate }, catalogSettings: catalog.store.settings)
        _ = try session.buy(try catalog.purchasableProduct("fx.plus.monthly"), in: catalog)
        let identity = try SigningIdentity.loadOrCreate(in: Support.temporaryDirectory() + "/certs", lockTimeout: 5)
        // A port that was just listened on and is closed now: the connection is refused.
        let server = try HTTPServer { _ in .status(.ok) }
        let endpoint = try HTTPEndpoint("http://127.0.0.1:\(server.port)/notifications")
        server.stop()

        var reported: [DeliveryAttempt] = []
        let due = try session.deliverDueNotifications(
            to: endpoint, timeout: 5, signer: StoreSession.Signer(identity: identity)
        ) { _, attempt, _ in reported.append(attempt) }
        #expect(due > 0 && reported.count == due)
        #expect(reported.allSatisfy { $0.result == .socketIssue && $0.httpStatus == nil })
        let recorded = try session.notifications().flatMap(\.attempts)
        #expect(recorded == reported)
    }
}
