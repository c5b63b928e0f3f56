import Foundation
import IAPSimCrypto
import IAPSimJSON
import IAPSimTestSupport
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

    /// A kill between a temp file's creation and its rename left it for good — in `replaced/`
    /// one holding a replaced set's private keys, and beside files written outside the state
    /// (`certs export`, `receipt --out`). The next writer under the lock removes them.
    @Test func tempFilesAKillLeftAreRemovedByTheNextWrite() throws {
        let certs = Support.temporaryDirectory()
        _ = try SigningIdentity.create(in: certs, replacing: false, lockTimeout: 5)
        try FileManager().createDirectory(atPath: certs + "/replaced", withIntermediateDirectories: true)
        let strays = [
            certs + "/replaced/.0a1b.pem.Ab12Cd", certs + "/.tls-root.key.x9Y8z7", certs + "/.leaf.key.QQQQQQ",
        ]
        for stray in strays { #expect(FileManager().createFile(atPath: stray, contents: Data("key".utf8))) }
        #expect(FileManager().createFile(atPath: certs + "/.keep.me", contents: Data()))  // not a temp file's name
        _ = try SigningIdentity.create(in: certs, replacing: true, lockTimeout: 5, replacedAt: Date())
        for stray in strays { #expect(!FileManager().fileExists(atPath: stray), "\(stray)") }
        #expect(FileManager().fileExists(atPath: certs + "/.keep.me"))

        let outside = Support.temporaryDirectory()
        #expect(FileManager().createFile(atPath: outside + "/.root.pem.k3Jd9Q", contents: Data("half".utf8)))
        try OutsideFile.write(Array("whole".utf8), to: outside + "/root.pem")
        #expect(try FileManager().contentsOfDirectory(atPath: outside) == ["root.pem"])
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

    /// A set without an RSA receipt chain (made by JWS signing, or by an iapsim before the
    /// chain, with or without set folders) gains one when a receipt needs it: its other files
    /// keep their bytes, the new keys are 0600, and a second call makes nothing new.
    @Test(arguments: [false, true]) func anOlderSetGainsTheReceiptChainAndKeepsItsFiles(legacy: Bool) throws {
        let directory = Support.temporaryDirectory()
        if legacy {
            try Self.writeLegacySet(in: directory)
        } else {
            _ = try SigningIdentity.create(in: directory, replacing: false, lockTimeout: 5)
        }
        let identity = try #require(try SigningIdentity.load(from: directory))
        #expect(identity.receiptChain == nil)
        #expect(throws: SigningError.noReceiptChain(directory: directory)) {
            try identity.signReceipt(
                AppReceipt(
                    receiptType: "ProductionSandbox", bundleID: "b", applicationVersion: "1", opaqueValue: [],
                    sha1Hash: [], creationDate: Date(timeIntervalSince1970: 0), originalApplicationVersion: "1",
                    inAppPurchases: []))
        }
        var before: [String: Data] = [:]
        for name in SigningIdentity.fileNames {
            before[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        let grown = try identity.withReceiptChain(lockTimeout: 5, make: ReceiptChainFixture.make)
        #expect(grown.receiptChain != nil)
        #expect(grown.generation != identity.generation)
        for name in SigningIdentity.fileNames {
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)) == before[name], "\(name)")
        }
        for name in ReceiptSigningChain.fileNames where name.hasSuffix(".key") {
            let file = URL(fileURLWithPath: directory + "/" + name).resolvingSymlinksInPath().path
            let mode = try FileManager().attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name)")
            #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        }
        let reread = try #require(try SigningIdentity.load(from: directory))
        #expect(reread.receiptChain?.root == grown.receiptChain?.root)
        #expect(reread.chain.root == identity.chain.root)
        let again = try identity.withReceiptChain(lockTimeout: 5) {
            Issue.record("a set with a receipt chain was given another")
            return try ReceiptChainFixture.make()
        }
        #expect(again.generation == reread.generation)
        // A damaged receipt key is named, as the other files are.
        try "garbage".write(toFile: directory + "/current/receipt-leaf.key", atomically: false, encoding: .utf8)
        #expect(throws: SigningError.self) { try SigningIdentity.load(from: directory) }
    }
}
