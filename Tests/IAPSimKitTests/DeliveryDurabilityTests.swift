import Foundation
import Testing

@testable import IAPSimKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Each delivery's outcome is in the journal before the next delivery starts, one process
/// delivers a state's notifications, and a delivery that cannot be recorded stops delivering.
/// (Tests/e2e/deliveries.py kills `listen` with SIGKILL; these run in-process.)
@Suite struct DeliveryDurabilityTests {
    /// What the journal held, read as another process would, when each POST arrived.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int] = []
        func append(_ value: Int) { lock.withLock { values.append(value) } }
        var all: [Int] { lock.withLock { values } }
    }

    @Test func eachAttemptIsRecordedBeforeTheNextPost() throws {
        let seen = Seen()
        let box = FixtureBox()
        let fixture = try DeliveryFixture(
            environment: .sandbox,
            observe: { _ in
                seen.append((try? box.fixture?.recordedAttempts().count) ?? -1)
            })
        box.fixture = fixture
        try fixture.raise(5)
        #expect(try fixture.drain().count == 5)
        #expect(seen.all == [0, 1, 2, 3, 4])
    }

    @Test func aSecondDelivererWaitsThenRefuses() throws {
        let fixture = try DeliveryFixture(environment: .sandbox, lockTimeout: 0.2)
        var first: NotificationDeliverer? = try NotificationDeliverer(
            session: fixture.session, endpoint: fixture.endpoint, timeout: 5, signer: fixture.signer)
        #expect(first != nil)
        let refusal = DeliveryError.anotherDeliverer(
            path: fixture.store.location.deliveryLockPath, pid: getpid(), seconds: 0.2)
        #expect(throws: refusal) {
            _ = try NotificationDeliverer(
                session: fixture.session, endpoint: fixture.endpoint, timeout: 5, signer: fixture.signer)
        }
        first = nil  // released: another may deliver now
        try fixture.raise(1)
        #expect(try fixture.drain().count == 1)
    }

    /// A journal that cannot be written (here a folder in its place, as a full disk would fail
    /// the write): the POST just made is the only one.
    @Test func aFailedRecordStopsDeliveringAtOnce() throws {
        let box = FixtureBox()
        let fixture = try DeliveryFixture(
            environment: .sandbox,
            observe: { number in
                guard number == 1, let path = box.fixture?.store.location.notificationsPath else { return }
                unlink(path)
                mkdir(path, 0o700)
            })
        box.fixture = fixture
        try fixture.raise(3)
        #expect {
            try fixture.drain()
        } throws: { error in
            guard case .cannotRecord(let path, let uuid?, _) = error as? DeliveryError else { return false }
            return path == fixture.store.location.notificationsPath && !uuid.isEmpty
        }
        #expect(fixture.posts == 1)
    }

    /// A `reset` while a POST is in flight: its attempt is not recorded against the new
    /// history, whose first notification has the same UUID, and which is delivered in turn.
    @Test func aResetWhileDeliveringRecordsNothingAgainstTheNewHistory() throws {
        let box = FixtureBox()
        let fixture = try DeliveryFixture(
            environment: .sandbox,
            observe: { number in
                guard number == 1, let fixture = box.fixture else { return }
                _ = try? fixture.store.erase()
                fixture.clock.advance(seconds: 10)
                _ = try? fixture.session.sendTestNotification()
            })
        box.fixture = fixture
        try fixture.raise(2)
        let made = try fixture.drain()
        let entries = try fixture.session.notifications()
        #expect(entries.count == 1)
        #expect(entries.first?.attempts.map { $0.date } == entries.first.map { [$0.notification.date] })
        #expect(try fixture.recordedAttempts().count == 1)
        #expect(made.count == 1 && fixture.posts == 2)
    }

    /// A crash mid-append leaves a torn last line: the next attempt cuts it off first.
    @Test func aTornLastLineIsCutOffBeforeTheNextAttempt() throws {
        let fixture = try DeliveryFixture(environment: .sandbox)
        try fixture.raise(1)
        let path = fixture.store.location.notificationsPath
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"attempt":{"notificationUUID":"#.utf8))
        handle.closeFile()
        #expect(try fixture.drain().count == 1)
        #expect(try fixture.session.notifications().map(\.isDelivered) == [true])
    }

    /// Attempts are appended past the snapshot's mark; when delivering ends the snapshot is
    /// written again, so reads replay nothing.
    @Test func theSnapshotCatchesUpWhenDeliveringEnds() throws {
        let fixture = try DeliveryFixture(environment: .sandbox)
        try fixture.raise(3)
        try fixture.drain()
        let size = FileSystem.size(fixture.store.location.notificationsPath)
        #expect(try fixture.store.readSnapshot().outbox.journalLength == size)
    }

    /// The fixture, for a webhook handler made before it.
    final class FixtureBox: @unchecked Sendable {
        weak var fixture: DeliveryFixture?
    }
}
