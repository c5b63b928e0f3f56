import Foundation
import Testing

@testable import IAPSimKit

/// The index beside the journal: kept in step by every change, and never trusted when it is
/// missing, stale, torn, damaged or another folder's. Each fault is checked the same way:
/// every look-up answers as it does from a fresh rebuild (a copy of the folder without it).
@Suite struct TransactionIndexTests {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession
    var store: StateStore { session.store }
    var location: StateLocation { store.location }

    init() throws {
        catalog = try Support.validCatalog()
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
    }

    private func buy(_ id: String, _ outcome: StoreSession.Outcome? = nil) throws -> StoreSession.PurchaseResult {
        let product = try #require(catalog.store.products.first { $0.id == id })
        return try session.buy(product, in: catalog, outcome: outcome)
    }

    /// A history with every kind of line: consumables, a refund, renewals, an upgrade, a
    /// purchase approved after later ones, deletions.
    private func makeHistory() throws {
        for _ in 0..<3 { _ = try buy("fx.coins") }
        _ = try buy("fx.levels")
        _ = try buy("fx.plus.monthly")
        clock.advance(days: 40)
        _ = try buy("fx.plus.yearly")  // an upgrade: the monthly chain's latest gets a new version
        _ = try session.refund(1, reason: .other)
        guard case .pending(let pending) = try buy("fx.coins", .askToBuy) else {
            Issue.record("expected Ask to Buy")
            return
        }
        let coins = try #require(try buy("fx.coins").transaction)
        _ = try session.approve(pending.id, in: catalog)
        let pass = try #require(try buy("fx.pass").transaction)
        _ = try session.deleteTransaction(coins.id)
        _ = try session.deleteTransaction(pass.id)
    }

    /// Everything the index answers, as text to compare.
    private func answers(_ store: StateStore) throws -> [String] {
        var lines = try store.transactions().map { $0.json.serialized() }
        for product in ["fx.coins", "fx.levels", "fx.plus.monthly", "fx.plus.yearly", "fx.pass", "fx.none"] {
            var ids: [UInt64] = []
            try store.forEachTransaction(productID: product) { ids.append($0.id) }
            var summaries: [String] = []
            try store.forEachSummary(productID: product) { summary in
                summaries.append("\(summary)")
                return true
            }
            lines.append("\(product): \(ids) \(summaries)")
        }
        for id in UInt64(0)...20 {
            lines.append("\(id): \(try store.transaction(id)?.json.serialized() ?? "none")")
            lines.append("chain \(id): \(try store.chain(id).map(\.id))")
        }
        return lines
    }

    /// The answers of a copy of the state folder without its index.
    private func freshAnswers() throws -> [String] {
        let copy = Support.temporaryDirectory() + "/fresh"
        try FileManager().copyItem(atPath: location.directory, toPath: copy)
        try? FileManager().removeItem(atPath: copy + "/" + StateLocation.indexFileName)
        return try answers(Support.store(in: copy))
    }

    private func indexBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: location.indexPath)) }

    private func isTrusted() -> Bool {
        IndexReader.open(
            path: location.indexPath, journal: FileSignature.of(location.journalPath), boot: SystemBoot.identifier())
            != nil
    }

    /// The next change under the lock, which makes the index right again.
    private func touch() throws { try store.update { _ in } }

    // MARK: In step

    @Test func eachChangeKeepsTheIndexAsARebuildWouldMakeIt() throws {
        try makeHistory()
        let kept = try indexBytes()
        #expect(isTrusted())
        try FileManager().removeItem(atPath: location.indexPath)
        try touch()
        #expect(try indexBytes() == kept)
        #expect(try answers(store) == (try freshAnswers()))
    }

    @Test func aStateWithoutAJournalHasNoIndex() throws {
        _ = try session.setSetting(.askToBuy, to: "true")
        #expect(!FileManager().fileExists(atPath: location.indexPath))
        #expect(try store.transactions().isEmpty)
        #expect(try store.transaction(1) == nil)
    }

    // MARK: Faults

    @Test func aKillBetweenTheJournalAndTheIndexLeavesItStale() throws {
        try makeHistory()
        let before = try indexBytes()
        _ = try buy("fx.coins")
        _ = try session.refund(2, reason: .developerIssue)
        try before.write(to: URL(fileURLWithPath: location.indexPath))  // as a kill leaves it
        #expect(!isTrusted())
        #expect(try answers(store) == (try freshAnswers()))
        try touch()
        #expect(isTrusted())
    }

    @Test func aKillDuringTheIndexWriteLeavesItsOldHeader() throws {
        try makeHistory()
        let header = try indexBytes().prefix(TransactionIndex.headerSize)
        _ = try buy("fx.coins")
        _ = try session.refund(3, reason: .other)
        var torn = try indexBytes()
        torn.replaceSubrange(0..<TransactionIndex.headerSize, with: header)  // new records, old header
        try torn.write(to: URL(fileURLWithPath: location.indexPath))
        #expect(!isTrusted())
        #expect(try answers(store) == (try freshAnswers()))
    }

    @Test(arguments: [0, 100, 128, 2000, -80, -1])
    func aTruncatedIndexIsRebuilt(_ length: Int) throws {
        try makeHistory()
        var bytes = try indexBytes()
        bytes = bytes.prefix(length >= 0 ? length : bytes.count + length)
        try bytes.write(to: URL(fileURLWithPath: location.indexPath))
        #expect(!isTrusted())
        #expect(try answers(store) == (try freshAnswers()))
        try touch()
        #expect(isTrusted())
    }

    @Test func anIndexFromAnotherFolderIsNotTrusted() throws {
        // The same lines in another order: a journal of the same size, read differently.
        for id in ["fx.coins", "fx.coins", "fx.levels"] { _ = try buy(id) }
        let other = StoreSession(
            store: Support.store(), now: { Support.fixedDate }, catalogSettings: catalog.store.settings)
        for id in ["fx.levels", "fx.coins", "fx.coins"] {
            _ = try other.buy(try #require(catalog.store.products.first { $0.id == id }), in: catalog)
        }
        #expect(FileSystem.size(location.journalPath) == FileSystem.size(other.store.location.journalPath))
        try FileManager().removeItem(atPath: location.indexPath)
        try FileManager().copyItem(atPath: other.store.location.indexPath, toPath: location.indexPath)
        #expect(!isTrusted())
        #expect(try answers(store) == (try freshAnswers()))
        #expect(try store.forEachTransactionIDs(productID: "fx.levels") == [3])
    }

    @Test func aCopiedFolderRebuildsItsIndex() throws {
        try makeHistory()
        let copy = Support.temporaryDirectory() + "/copy"
        try FileManager().copyItem(atPath: location.directory, toPath: copy)
        let copied = Support.store(in: copy)
        #expect(
            IndexReader.open(
                path: copied.location.indexPath, journal: FileSignature.of(copied.location.journalPath),
                boot: SystemBoot.identifier()) == nil)
        #expect(try answers(copied) == (try answers(store)))
    }

    @Test func aJournalEditedInPlaceIsNoticed() throws {
        try makeHistory()
        // Coarse file-system clocks tick every few milliseconds: let this edit fall in a later
        // tick than the last write, as any edit by hand does.
        Thread.sleep(forTimeInterval: 0.03)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: location.journalPath))
        let text = try #require(String(data: handle.readDataToEndOfFile(), encoding: .utf8))
        let line = try #require(text.range(of: "{\"id\":2,"))  // transaction 2 has one version
        let target = try #require(text.range(of: "\"productID\":\"fx.coins\"", range: line.upperBound..<text.endIndex))
        handle.seek(toFileOffset: UInt64(text.utf8.distance(from: text.startIndex, to: target.lowerBound)))
        handle.write(Data("\"productID\":\"fx.coinz\"".utf8))  // the same size
        try handle.close()
        #expect(!isTrusted())
        #expect(try answers(store) == (try freshAnswers()))
        #expect(try store.forEachTransactionIDs(productID: "fx.coinz") == [2])
    }

    @Test func aDamagedRecordIsFoundWhenReadAndTheIndexRebuilt() throws {
        try makeHistory()
        var bytes = try indexBytes()
        let header = try #require(TransactionIndex.Header(Array(bytes.prefix(TransactionIndex.headerSize))))
        bytes[header.recordsOffset + 3 * TransactionIndex.recordSize + 17] ^= 0x40  // record 3's offset
        try bytes.write(to: URL(fileURLWithPath: location.indexPath))
        #expect(isTrusted())  // the header checks: the record is found out when read
        #expect(try store.transaction(4)?.id == 4)
        #expect(!FileManager().fileExists(atPath: location.indexPath))  // removed, for the next change to rebuild
        #expect(try answers(store) == (try freshAnswers()))
        try touch()
        #expect(isTrusted())
    }

    /// Found by the fuzzer: a record whose checksum holds but whose offset is past the
    /// journal (here past any file) must not be read.
    @Test(arguments: [UInt64.max, UInt64(1) << 62, UInt64(1) << 40])
    func aRecordPointingPastTheJournalIsDamage(_ offset: UInt64) throws {
        try makeHistory()
        var bytes = IndexBytes(Array(try indexBytes()))
        let header = try #require(TransactionIndex.Header(Array(bytes.bytes.prefix(TransactionIndex.headerSize))))
        let base = header.recordsOffset + 2 * TransactionIndex.recordSize
        bytes.put64(offset, at: base + 16)
        bytes.seal(checksumAt: base + 72, from: base, seed: IndexChecksum.recordSeed ^ 2)
        try Data(bytes.bytes).write(to: URL(fileURLWithPath: location.indexPath))
        #expect(isTrusted())
        #expect(try answers(store) == (try freshAnswers()))
    }

    @Test func randomBytesAreNeverTrusted() throws {
        try makeHistory()
        let expected = try freshAnswers()
        var random = Support.SeededRandom(label: "index garbage")
        let real = try indexBytes()
        for round in 0..<20 {
            var bytes: Data
            switch round % 3 {
            case 0:
                bytes = Data(
                    (0..<Int.random(in: 0..<20_000, using: &random)).map { _ in
                        UInt8.random(in: 0...255, using: &random)
                    })
            case 1:
                bytes = real  // the real file with a few bytes changed anywhere
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            default:
                bytes =
                    real.prefix(TransactionIndex.headerSize)
                    + Data(repeating: 0, count: real.count - TransactionIndex.headerSize)
            }
            try bytes.write(to: URL(fileURLWithPath: location.indexPath))
            #expect(try answers(store) == expected, "round \(round)")
        }
    }
}

extension StateStore {
    fileprivate func forEachTransactionIDs(productID: String) throws -> [UInt64] {
        var ids: [UInt64] = []
        try forEachTransaction(productID: productID) { ids.append($0.id) }
        return ids
    }
}
