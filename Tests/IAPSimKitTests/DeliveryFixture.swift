import Foundation
import IAPSimHTTP

@testable import IAPSimKit

/// A state in a temporary folder on a clock the test moves, a webhook on 127.0.0.1 that
/// answers what `answer` says and calls `observe` with each POST's number (1 for the first)
/// before it answers, and the test certificates to sign with.
final class DeliveryFixture: @unchecked Sendable {
    let clock = Support.Clock()
    let store: StateStore
    let session: StoreSession
    let signer: StoreSession.Signer
    let server: HTTPServer
    let endpoint: HTTPEndpoint
    private let counter = Counter()
    /// POSTs received so far.
    var posts: Int { counter.value }

    init(
        environment: AppStoreEnvironment, lockTimeout: Double = 5,
        answer: @escaping @Sendable (Int) -> HTTPStatus = { _ in .ok },
        observe: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws {
        let directory = Support.temporaryDirectory() + "/state"
        store = StateStore(location: StateLocation(directory: directory, lockTimeout: lockTimeout))
        let clock = self.clock
        session = StoreSession(store: store, now: { clock.now })
        let identity = try SigningIdentity.loadOrCreate(in: Support.temporaryDirectory() + "/certs", lockTimeout: 5)
        signer = StoreSession.Signer(identity: identity, environment: environment)
        let counter = self.counter
        server = try HTTPServer { _ in
            let number = counter.next()
            observe(number)
            return .status(answer(number))
        }
        endpoint = try HTTPEndpoint("http://127.0.0.1:\(server.port)/notifications")
    }

    deinit { server.stop() }

    /// POSTs received so far.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func next() -> Int {
            lock.withLock {
                count += 1
                return count
            }
        }
    }

    /// Raises `count` TEST notifications, a second apart on the clock.
    func raise(_ count: Int) throws {
        for _ in 0..<count {
            _ = try session.sendTestNotification()
            clock.advance(seconds: 1)
        }
    }

    /// A drain: every attempt due now. - Returns: the attempts made.
    @discardableResult
    func drain() throws -> [DeliveryAttempt] {
        var made: [DeliveryAttempt] = []
        _ = try session.deliverDueNotifications(to: endpoint, timeout: 5, signer: signer) { _, attempt, _ in
            made.append(attempt)
        }
        return made
    }

    /// Every attempt recorded in the journal, read from the file as another process would.
    func recordedAttempts() throws -> [DeliveryAttempt] {
        try store.notificationRecords().compactMap {
            if case .attempt(let attempt) = $0 { attempt } else { nil }
        }
    }
}
