import Foundation
import IAPSimCrypto
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// `iapsim certs rotate` replaces all the certificates and keys or none, and a reader during a
/// rotate always reads one whole set (`CertificateSetFolder`).
@Suite struct SigningIdentityRotationTests {
    struct Interrupted: Error {}

    /// Rotates `directory`, throwing at write number `stop` as a SIGKILL there would stop it.
    /// - Returns: whether the rotate finished before reaching `stop`.
    static func rotate(_ directory: String, stoppingAt stop: Int) throws -> Bool {
        var count = 0
        do {
            _ = try SigningIdentity.create(in: directory, replacing: true, lockTimeout: 5) { _ in
                if count == stop { throw Interrupted() }
                count += 1
            }
            return true
        } catch is Interrupted {
            return false
        }
    }

    /// Writes a set as an iapsim before sets did: the eight files themselves in the folder.
    static func writeLegacySet(in directory: String) throws {
        let source = Support.temporaryDirectory()
        let identity = try SigningIdentity.create(in: source, replacing: false, lockTimeout: 5)
        for name in SigningIdentity.fileNames {
            try Data(contentsOf: URL(fileURLWithPath: source + "/" + name)).write(
                to: URL(fileURLWithPath: directory + "/" + name))
        }
        #expect(try SigningIdentity.load(from: directory)?.chain.root == identity.chain.root)
    }

    @Test(arguments: [false, true]) func aRotateStoppedAtAnyStepLeavesAWholeSet(legacy: Bool) throws {
        var stop = 0
        while true {
            let directory = Support.temporaryDirectory() + "/certs"
            try FileManager().createDirectory(atPath: directory, withIntermediateDirectories: true)
            if legacy {
                try Self.writeLegacySet(in: directory)
            } else {
                _ = try SigningIdentity.create(in: directory, replacing: false, lockTimeout: 5)
            }
            let before = try #require(try SigningIdentity.load(from: directory))
            let finished = try Self.rotate(directory, stoppingAt: stop)
            // `load` checks every key against its certificate and the chain to the root.
            let after = try #require(try SigningIdentity.load(from: directory), "stopped at write \(stop)")
            if finished { #expect(after.chain.root != before.chain.root) }
            let jws = after.sign(.object([("a", .number("1"))]), environment: .sandbox)
            #expect(try JWSInspection.inspect(jws, trusting: after).verifies, "stopped at write \(stop)")
            // The next rotate finishes, and clears what the stopped one left.
            #expect(try Self.rotate(directory, stoppingAt: -1))
            let sets = try FileManager().contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("set.") }
            #expect(sets.count == 1, "stopped at write \(stop)")
            if finished { break }
            stop += 1
            try #require(stop < 100)
        }
        #expect(stop > 8)  // every file, the switch and every link were each a place to stop
    }

    @Test func aPartialSetFolderIsIgnoredAndRemoved() throws {
        let directory = Support.temporaryDirectory()
        let identity = try SigningIdentity.create(in: directory, replacing: false, lockTimeout: 5)
        try FileManager().createDirectory(atPath: directory + "/set.ABC123", withIntermediateDirectories: false)
        try "garbage".write(toFile: directory + "/set.ABC123/leaf.key", atomically: false, encoding: .utf8)
        #expect(try SigningIdentity.load(from: directory)?.chain.root == identity.chain.root)
        _ = try SigningIdentity.create(in: directory, replacing: true, lockTimeout: 5)
        #expect(!FileManager().fileExists(atPath: directory + "/set.ABC123"))
    }

    /// Commands run during a rotate used to fail about one time in six.
    @Test func readersDuringRotatesAlwaysReadOneWholeSet() throws {
        let directory = Support.temporaryDirectory()
        let first = try SigningIdentity.create(in: directory, replacing: false, lockTimeout: 5)
        let signer = StoreSession.Signer(identity: first, reloading: true)
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var done = false
            var reads = 0
            var failures: [String] = []
        }
        let tally = Tally()
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                while !tally.lock.withLock({ tally.done }) {
                    let failure: String?
                    do {
                        failure = try SigningIdentity.load(from: directory) == nil ? "no identity" : nil
                    } catch {
                        failure = "\(error)"
                    }
                    tally.lock.withLock {
                        tally.reads += 1
                        if let failure { tally.failures.append(failure) }
                    }
                }
            }
        }
        var last = first
        for _ in 0..<6 { last = try SigningIdentity.create(in: directory, replacing: true, lockTimeout: 5) }
        tally.lock.withLock { tally.done = true }
        group.wait()
        #expect(tally.failures.isEmpty, "\(tally.failures.prefix(3)) of \(tally.reads) reads")
        // A running signer (serve, listen) signs with the new chain at its next signing.
        #expect(signer.identity.chain.root == last.chain.root)
        #expect(signer.identity.chain.root != first.chain.root)
    }
}
