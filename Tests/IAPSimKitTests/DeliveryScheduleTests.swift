import Foundation
import Testing

@testable import IAPSimKit

/// Retries follow Apple's schedule on the simulated clock ("Responding to App Store Server
/// Notifications"): in Production 1, 12, 24, 48 and 72 hours after each failed attempt, in
/// the sandbox none; a drain makes every attempt due by now, each dated when it fell due.
@Suite struct DeliveryScheduleTests {
    static let hour = 3_600.0

    /// The dates Apple's schedule gives the first `count` attempts of an event at `start`.
    static func schedule(from start: Date, count: Int) -> [Date] {
        var dates = [start]
        for delay in StoreSession.retryDelays(.production).prefix(count - 1) { dates.append(dates.last! + delay) }
        return dates
    }

    @Test func productionRetriesAsTheClockPassesThem() throws {
        let fixture = try DeliveryFixture(environment: .production) { _ in .internalServerError }
        let start = fixture.clock.now
        try fixture.raise(1)
        #expect(try fixture.drain().count == 1)
        fixture.clock.advance(days: 3)  // 72 hours: retries at 1, 13 and 37 hours
        #expect(try fixture.drain().count == 3)
        fixture.clock.advance(days: 30)  // and at 85 and 157 hours: the five retries are spent
        #expect(try fixture.drain().count == 2)
        fixture.clock.advance(days: 300)
        #expect(try fixture.drain().isEmpty)
        let attempts = try fixture.recordedAttempts()
        #expect(attempts.map(\.date) == Self.schedule(from: start, count: 6))
        #expect(attempts.allSatisfy { $0.result == .unsuccessfulHTTPResponseCode && $0.httpStatus == 500 })
    }

    @Test func theSandboxSendsOnce() throws {
        let fixture = try DeliveryFixture(environment: .sandbox) { _ in .internalServerError }
        try fixture.raise(1)
        #expect(try fixture.drain().count == 1)
        fixture.clock.advance(days: 30)
        #expect(try fixture.drain().isEmpty)
    }

    @Test func aSuccessEndsTheSchedule() throws {
        let fixture = try DeliveryFixture(environment: .production) { $0 == 1 ? .internalServerError : .ok }
        let start = fixture.clock.now
        try fixture.raise(1)
        fixture.clock.advance(days: 10)
        let made = try fixture.drain()
        #expect(made.map(\.result) == [.unsuccessfulHTTPResponseCode, .success])
        #expect(made.map(\.date) == [start, start + Self.hour])
        fixture.clock.advance(days: 10)
        #expect(try fixture.drain().isEmpty)
    }

    /// The attempts of several notifications go in order of their due dates.
    @Test func attemptsGoInTheOrderTheyFellDue() throws {
        let fixture = try DeliveryFixture(environment: .production) { _ in .internalServerError }
        let start = fixture.clock.now
        try fixture.raise(1)
        fixture.clock.advance(seconds: 2 * Self.hour - 1)
        try fixture.raise(1)  // at 2 hours, after the first one's retry at 1 hour
        let made = try fixture.drain()
        #expect(made.map(\.date) == [start, start + Self.hour, start + 2 * Self.hour])
    }

    @Test(arguments: 0...6) func eachAttemptFallsDueOnApplesSchedule(_ failures: Int) throws {
        let start = Support.fixedDate
        let delays = StoreSession.retryDelays(.production)
        let dates = Self.schedule(from: start, count: 6)
        var entry = DeliveryQueue.Pending(
            notification: ServerNotification(
                uuid: "u", kind: .test, subtype: nil, date: start, transaction: nil,
                renewal: nil, status: nil),
            number: 1, line: StateStore.NotificationLine(offset: 0, length: 1, checksum: 0))
        entry.failures = failures
        entry.lastAttempt = failures > 0 ? dates[failures - 1] : nil
        let now = start + 400 * Self.hour
        #expect(entry.dueDate(delays: delays, now: now) == (failures < 6 ? dates[failures] : nil))
        #expect(entry.dueDate(delays: [], now: now) == (failures == 0 ? start : nil))
    }

    /// Another process moves the clock on and raises a notification between the deliverer's
    /// read of the state and its look at the journal (the moment a `clock advance` lands while
    /// `listen` delivers): the notification's first attempt is dated at its event, never
    /// before it.
    @Test func aNotificationRaisedMeanwhileIsDatedAtItsEvent() throws {
        let fixture = try DeliveryFixture(environment: .production)
        let deliverer = try NotificationDeliverer(
            session: fixture.session, endpoint: fixture.endpoint, timeout: 5, signer: fixture.signer)
        var raised: ServerNotification?
        deliverer.afterSnapshot = {
            fixture.clock.advance(seconds: 6 * 86_400)
            raised = try? fixture.session.sendTestNotification()
        }
        var attempts: [DeliveryAttempt] = []
        _ = try deliverer.deliverDue { _, attempt, _ in attempts.append(attempt) }
        let notification = try #require(raised)
        #expect(attempts.map(\.uuid) == [notification.uuid])
        #expect(attempts.first?.date == notification.date)
        #expect(try fixture.recordedAttempts().map(\.date) == [notification.date])
    }

    /// A clock set back before an event still delivers it, at once.
    @Test func anEventAfterNowIsDueNow() {
        let now = Support.fixedDate
        let entry = DeliveryQueue.Pending(
            notification: ServerNotification(
                uuid: "u", kind: .test, subtype: nil, date: now + 86_400, transaction: nil,
                renewal: nil, status: nil),
            number: 1, line: StateStore.NotificationLine(offset: 0, length: 1, checksum: 0))
        #expect(entry.dueDate(delays: [], now: now) == now)
    }
}
