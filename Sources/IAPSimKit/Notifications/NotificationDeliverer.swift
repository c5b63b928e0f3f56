import Foundation
import IAPSimHTTP
import IAPSimJSON

/// Delivers a state's notifications to one endpoint as the App Store does, and is the only
/// process that does while it exists: it holds the state's delivery lock from `init` on.
///
/// Each attempt is appended to the notifications journal as it ends, before the next
/// delivery starts, so a process killed at any moment repeats at most the delivery that was
/// in flight. The journal is fsynced after at most `syncBatch` attempts, and before a
/// delivery starts once the oldest unsynced attempt is `syncDelay` old, so a power loss
/// repeats at most those and the one in flight. Attempts follow Apple's schedule on the
/// simulated clock ("Responding to App Store Server Notifications"): each is dated when it
/// fell due, so a clock moved forward gets every retry Apple would have made by then.
public final class NotificationDeliverer {
    /// At most this many attempts are written and not yet fsynced.
    public static let syncBatch = 8
    /// An unsynced attempt is fsynced before the next delivery once it is this old.
    public static let syncDelay: Duration = .milliseconds(100)
    /// The snapshot is written again once the attempts past its mark add up to this many
    /// bytes (and when delivering ends), so reads replay no more than that.
    static let settleLag: UInt64 = 16 * 1024

    public let session: StoreSession
    public let endpoint: HTTPEndpoint
    let headers: [(String, String)]
    let timeout: Double
    let signer: StoreSession.Signer
    let kinds: Set<ServerNotification.Kind>?
    private let lock: DeliveryLock
    private var queue = DeliveryQueue()
    private var unsynced = 0
    private var oldestUnsynced: ContinuousClock.Instant?
    /// The clock, rate and retry delays of the last pass, for `secondsUntilNextRetry`.
    private var schedule: (clock: SimulatedClock?, rate: TimeRate, delays: [TimeInterval])?

    /// Takes the state's delivery lock, waiting up to the state's lock timeout.
    /// - Throws: `DeliveryError.anotherDeliverer` when another process delivers; `StateError`.
    public init(
        session: StoreSession, endpoint: HTTPEndpoint, headers: [(String, String)] = [], timeout: Double,
        signer: StoreSession.Signer, kinds: Set<ServerNotification.Kind>? = nil
    ) throws {
        let location = session.store.location
        do {
            try POSIXFile.makeDirectory(location.directory)
        } catch {
            throw StateError.cannotCreate(path: error.path, reason: error.reason)
        }
        lock = try DeliveryLock(path: location.deliveryLockPath, timeout: location.lockTimeout)
        self.session = session
        self.endpoint = endpoint
        self.headers = headers
        self.timeout = timeout
        self.signer = signer
        self.kinds = kinds
    }

    deinit {
        if unsynced > 0 { try? session.store.syncNotifications() }  // stopped by an error: keep what was recorded
    }

    /// Delivers, in order of their due dates, every attempt that falls due by the simulated
    /// now, retries included: HTTP 200–206 is success, anything else (another status, a
    /// timeout, a refused connection) a failed attempt with Apple's `sendAttemptResult`.
    /// - Parameter report: called after each attempt is recorded, with how long the POST took.
    /// - Returns: how many POSTs were made (one more than reported when the history was erased
    ///   meanwhile: that one is not recorded, and the next call starts afresh).
    /// - Throws: `DeliveryError.cannotRecord` when an attempt cannot be recorded: nothing more
    ///   is posted.
    public func deliverDue(
        shouldStop: () -> Bool = { false }, report: (StoreSession.Delivery, DeliveryAttempt, Duration) -> Void
    ) throws -> Int {
        try session.bringOtherAccountsUpToDate()  // every customer's renewals notify
        let (state, moment) = try session.snapshot()  // time brought up to date: renewals notify
        afterSnapshot()
        try queue.refresh(session.store)
        let now = try nowAfterRefresh()
        let context = session.signingContext(state, moment, signer)
        let delays = StoreSession.retryDelays(context.environment)
        schedule = (state.simulation.clock, moment.settings.timeRate, delays)
        let ready = queue.due(at: now, delays: delays, kinds: kinds)
        return try post(ready, state: state, retryingBy: now, context: context, shouldStop, report)
    }

    /// Called between the snapshot and the queue's refresh: where another process's change
    /// can land. Tests set it to make one land there.
    var afterSnapshot: () -> Void = {}

    /// The simulated now, read after the queue: a change another process committed since the
    /// snapshot (a clock moved on, with its renewals' notifications) is in the queue, and its
    /// notifications are dated after the snapshot's now. Read before them, each would fall due
    /// at once and its first attempt be dated before its own event (`dueDate` dates an event
    /// past now at now, for a clock set back); read after, every committed notification is
    /// dated by then, unless the clock was set back.
    private func nowAfterRefresh() throws -> Date {
        try session.simulatedNow()
    }

    /// `notifications resend`: posts again, now, the notifications `uuids` names (each by its
    /// UUID or a prefix naming one), or every one not delivered that failed when it is nil —
    /// whatever Apple's schedule says, in the sandbox too, where Apple never retries (as
    /// `stripe events resend` does for Stripe's). Each attempt is recorded as any other.
    /// - Returns: how many POSTs were made, and the UUIDs that name no notification waiting for
    ///   delivery (unknown, or delivered already).
    public func resend(
        _ uuids: [String]?, shouldStop: () -> Bool = { false },
        report: (StoreSession.Delivery, DeliveryAttempt, Duration) -> Void
    ) throws -> (made: Int, unknown: [String]) {
        try session.bringOtherAccountsUpToDate()
        let (state, moment) = try session.snapshot()
        try queue.refresh(session.store)
        let context = session.signingContext(state, moment, signer)
        schedule = (state.simulation.clock, moment.settings.timeRate, StoreSession.retryDelays(context.environment))
        let (ready, unknown) = queue.resendable(uuids, at: try nowAfterRefresh())
        let made = try post(ready, state: state, retryingBy: nil, context: context, shouldStop, report)
        return (made, unknown)
    }

    /// Posts `ready` in order (the next is the last), recording each attempt; given a `now`, a
    /// failure whose retry falls due by then is posted again in this pass.
    private func post(
        _ ready: [(date: Date, number: Int)], state: PurchaseState, retryingBy now: Date?,
        context: SigningContext, _ shouldStop: () -> Bool,
        _ report: (StoreSession.Delivery, DeliveryAttempt, Duration) -> Void
    ) throws -> Int {
        var ready = ready
        var known: [UInt64: String] = [:]
        let delays = StoreSession.retryDelays(context.environment)
        var made = 0
        let clock = ContinuousClock()
        deliveries: while !shouldStop(), let (date, number) = ready.popLast(), let entry = queue.pending[number] {
            if let oldest = oldestUnsynced, clock.now - oldest >= Self.syncDelay { try sync() }
            let signed = NotificationPayload.signedPayload(
                entry.notification,
                context: session.signingContext(
                    context, for: entry.notification, ownNumber: state.account.customerNumber, known: &known),
                identity: signer.identity)
            let body = JSONValue.object([("signedPayload", .string(signed.jws))]).bytes(compact: true)
            let start = clock.now
            // A stop asked for (SIGTERM, SIGINT) abandons the POST within a tenth of a second:
            // not an attempt, so nothing is recorded and the notification stays due.
            let outcome = HTTPClient.post(
                endpoint, body: body, headers: headers, timeout: timeout, isCancelled: shouldStop)
            let elapsed = clock.now - start
            let attempt: DeliveryAttempt
            switch outcome {
            case .cancelled:
                break deliveries
            case .response(let status):
                let result: DeliveryAttempt.Result =
                    (200...206).contains(status) ? .success : .unsuccessfulHTTPResponseCode
                attempt = DeliveryAttempt(uuid: entry.notification.uuid, date: date, result: result, httpStatus: status)
            case .failed(let failure, _):
                attempt = DeliveryAttempt(
                    uuid: entry.notification.uuid, date: date, result: .init(failure), httpStatus: nil)
            }
            made += 1
            guard try record(attempt, of: entry) else { break }  // a reset: the next pass reads afresh
            report(
                StoreSession.Delivery(notification: entry.notification, body: body, attempt: entry.failures + 1),
                attempt, elapsed)
            if let now, let retry = queue.pending[number]?.dueDate(delays: delays, now: now), retry <= now {
                let place = ready.firstIndex { ($0.date, $0.number) < (retry, number) } ?? ready.endIndex
                ready.insert((retry, number), at: place)
            }
        }
        try sync()
        try session.store.settleNotifications(lag: Self.settleLag)
        return made
    }

    /// Real seconds until the next retry falls due on the simulated clock, as of the last
    /// `deliverDue`; nil when none is waiting or the clock is frozen.
    public func secondsUntilNextRetry() -> Double? {
        guard let schedule, schedule.clock?.frozen != true else { return nil }
        let now = SimulatedClock.now(schedule.clock, real: session.realNow(), rate: schedule.rate)
        guard let due = queue.nextRetry(after: now, delays: schedule.delays, kinds: kinds) else { return nil }
        let speed = schedule.clock == nil ? 1 : schedule.rate.clockSpeed
        return max(0, due.timeIntervalSince(now) / speed)
    }

    /// Ends delivering: the attempts recorded are fsynced and the snapshot brought up to them.
    public func finish() throws {
        try sync()
        try session.store.settleNotifications(lag: 1)
    }

    /// Appends `attempt` to the journal; false when the notification is gone (a reset).
    private func record(_ attempt: DeliveryAttempt, of entry: DeliveryQueue.Pending) throws -> Bool {
        let offset: UInt64?
        do {
            offset = try session.store.appendAttempt(attempt, of: entry.line)
        } catch let error as StateError {
            switch error {
            case .io(let path, let reason), .cannotCreate(let path, let reason):
                throw DeliveryError.cannotRecord(path: path, uuid: attempt.uuid, reason: reason)
            default: throw error
            }
        }
        guard let offset else {
            queue.reset()
            return false
        }
        queue.recorded(attempt, at: offset)
        unsynced += 1
        if oldestUnsynced == nil { oldestUnsynced = ContinuousClock().now }
        if unsynced >= Self.syncBatch { try sync() }
        return true
    }

    private func sync() throws {
        guard unsynced > 0 else { return }
        do {
            try session.store.syncNotifications()
        } catch {
            switch error {
            case .io(let path, let reason), .cannotCreate(let path, let reason):
                throw DeliveryError.cannotRecord(path: path, uuid: nil, reason: reason)
            default: throw error
            }
        }
        unsynced = 0
        oldestUnsynced = nil
    }
}
