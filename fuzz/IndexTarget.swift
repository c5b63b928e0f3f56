import Foundation

// libFuzzer target: the index beside the journal (transactions.idx). Each input is an index
// file beside a small fixed journal, read by every look-up and then updated in place as a
// purchase updates it: never a crash, a trap or a hang, whatever the bytes. The first byte chooses how the rest is
// used: as it is (the header must check, so it is mostly refused and rebuilt), or sealed — a
// header naming the journal and checksums made to fit — so that the walks, links and names
// behind the checksums meet arbitrary records.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let directory = FuzzFiles.directory + "/index"
    let location = StateLocation(directory: directory)
    try? FileManager().createDirectory(atPath: directory, withIntermediateDirectories: true)
    try? FileManager().removeItem(atPath: location.statePath)
    try? Data(IndexFuzzing.journal.utf8).write(to: URL(fileURLWithPath: location.journalPath))
    var index = Array(input.dropFirst())
    if input.first.map({ $0 & 1 == 1 }) ?? false {
        index = IndexFuzzing.sealed(
            index, journal: FileSignature.of(location.journalPath), boot: SystemBoot.identifier())
    }
    try? Data(index).write(to: URL(fileURLWithPath: location.indexPath))
    let store = StateStore(location: location)
    _ = try? store.transaction(2)
    _ = try? store.transactions()
    _ = try? store.chain(1)
    try? store.forEachSummary(productID: "b") { _ in true }
    try? store.forEachTransaction(ids: [3, 1, 9]) { _ in }
    // What a change does after its journal append (without the append and its fsyncs, which
    // would slow the fuzzer a hundredfold): new records, a new version, a new product.
    let journal = FileSignature.of(location.journalPath)
    let boot = SystemBoot.identifier()
    try? Data(index).write(to: URL(fileURLWithPath: location.indexPath))
    if let reader = IndexReader.open(path: location.indexPath, journal: journal, boot: boot) {
        let lines = [
            IndexFuzzing.transaction(5, originalID: 1, productID: "b"),
            IndexFuzzing.transaction(2, originalID: 2, productID: "a"),
            IndexFuzzing.transaction(6, originalID: 6, productID: "c"),
        ].enumerated().map { ($1, reader.header.coveredLength + UInt64($0 * 100)) }
        _ = IndexAppender.apply(
            lines, to: location.indexPath, reader: reader, journal: journal, coveredLength: journal.size)
        if let reader = IndexReader.open(path: location.indexPath, journal: journal, boot: boot) {
            try? reader.forEachRecord { _, _ in true }
            _ = try? reader.names()
        }
    }
    return 0
}

enum IndexFuzzing {
    static func transaction(_ id: UInt64, originalID: UInt64, productID: String) -> Transaction {
        Transaction(
            id: id, originalID: originalID, productID: productID, productType: .autoRenewable,
            purchaseDate: Date(timeIntervalSince1970: 0), originalPurchaseDate: Date(timeIntervalSince1970: 0),
            subscriptionGroupID: "g", price: Decimal(string: "1")!, currency: "USD", storefrontCountryCode: "USA")
    }

    /// Four transactions: two products, a chain of two, a refund.
    static let journal =
        [
            #"{"id":1,"originalID":1,"productID":"b","productType":"autoRenewable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","subscriptionGroupID":"g","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
            #"{"id":2,"originalID":2,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
            #"{"id":3,"originalID":1,"productID":"b","productType":"autoRenewable","purchaseDate":"2026-02-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","subscriptionGroupID":"g","reason":"renewal","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
            #"{"id":2,"originalID":2,"productID":"a","productType":"consumable","purchaseDate":"2026-01-01T00:00:00Z","originalPurchaseDate":"2026-01-01T00:00:00Z","revocationDate":"2026-01-02T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
            #"{"id":4,"originalID":4,"productID":"a","productType":"consumable","purchaseDate":"2026-03-01T00:00:00Z","originalPurchaseDate":"2026-03-01T00:00:00Z","price":"1","currency":"USD","storefrontCountryCode":"USA"}"#,
        ].joined(separator: "\n") + "\n"

    /// `body` laid out as an index of `journal`: the first bytes give the counts, the rest
    /// fill the name slots, the heap and the records, and every part is sealed.
    static func sealed(_ body: [UInt8], journal: FileSignature, boot: [UInt8]) -> [UInt8] {
        func byte(_ index: Int) -> Int { index < body.count ? Int(body[index]) : 0 }
        var header = TransactionIndex.Header()
        header.journal = journal
        header.boot = boot
        header.nameCount = UInt32(byte(0) % 6)
        header.nameCapacity = header.nameCount + UInt32(byte(1) % 3)
        header.heapCapacity = UInt32(byte(2) % 64)
        header.heapUsed = min(header.heapCapacity, UInt32(byte(3) % 64))
        header.maxID = UInt64(byte(4) % 12)
        header.coveredLength = min(journal.size, UInt64(byte(5)) * 8)
        let rest = Array(body.dropFirst(6))
        header.recordCount = UInt64(
            max(0, rest.count - header.recordsOffset + TransactionIndex.headerSize) / TransactionIndex.recordSize)
        var out = IndexBytes(count: Int(header.fileSize))
        out.put(Array(rest.prefix(out.count - TransactionIndex.headerSize)), at: TransactionIndex.headerSize)
        for key in 0..<Int(header.nameCount) {
            // A name inside the heap, with its hash: the slot reads, whatever it points to.
            let base = TransactionIndex.headerSize + key * TransactionIndex.slotSize
            let used = Int(header.heapUsed)
            let start = used == 0 ? 0 : Int(out.get32(base + 8)) % (used + 1)
            let length = Int(out.get32(base + 12)) % (used - start + 1)
            out.put32(UInt32(start), at: base + 8)
            out.put32(UInt32(length), at: base + 12)
            let name = out.bytes[header.heapOffset + start..<header.heapOffset + start + length]
            out.put64(IndexChecksum.name(name), at: base)
            out.seal(checksumAt: base + 24, from: base, seed: IndexChecksum.slotSeed ^ UInt64(key))
        }
        for position in 0..<Int(header.recordCount) {
            let base = header.recordsOffset + position * TransactionIndex.recordSize
            out.seal(checksumAt: base + 72, from: base, seed: IndexChecksum.recordSeed ^ UInt64(position))
        }
        out.put(header.encoded(), at: 0)
        return out.bytes
    }
}
