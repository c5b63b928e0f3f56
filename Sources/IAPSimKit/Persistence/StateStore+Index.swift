import Foundation

// Look-ups through the index beside the journal (`TransactionIndex`). Changes keep it up to
// date under the lock (`update`); look-ups read it without the lock. An index that does not
// check is rebuilt from the journal under the lock, or where the lock cannot be taken (a
// read-only folder) built in memory for this process only.
extension StateStore {
    /// The latest version of transaction `id`; nil for one the account does not have (or no
    /// longer has: deleted). Safe under the lock (inside `update`).
    public func transaction(_ id: UInt64) throws -> Transaction? {
        let signature = FileSignature.of(location.journalPath)
        if let known = cache.transaction(id, journal: signature) { return known }
        let found: Transaction? =
            try withIndex(repairing: false) { index, journal -> Transaction? in
                guard let position = try index.position(of: id) else { return nil }
                let record = try index.record(at: position)
                guard !record.isDeleted else { return nil }
                return try Self.transaction(at: record, index: index, journal: journal)
            } ?? nil
        if let found { cache.remember(found, journal: signature) }
        return found
    }

    /// The newest transaction of `productID` that is not deleted and not among `excluded`, in
    /// its latest version: what the snapshot's `current` holds for the product once a deletion
    /// takes its newest away. Safe under the lock.
    func latestTransaction(productID: String, excluding excluded: Set<UInt64>) throws -> Transaction? {
        try withIndex(repairing: false) { index, journal in
            var newest: TransactionIndex.Record?
            try Self.walk(index, productID: productID, after: nil) { record in
                if !excluded.contains(record.id) { newest = record }
                return true
            }
            return try newest.map { try Self.transaction(at: $0, index: index, journal: journal) }
        } ?? nil
    }

    /// Every transaction in its latest version, in identifier order, all in memory: for small
    /// states and tests. `forEachTransaction` streams.
    public func transactions() throws -> [Transaction] {
        var all: [Transaction] = []
        try forEachTransaction { all.append($0) }
        return all
    }

    /// Calls `body` with the summary of each transaction, in identifier order, from the index
    /// alone, until `body` returns false. Outside `update` only: it may take the lock.
    /// - Parameter productID: only this product's transactions.
    public func forEachSummary(productID: String? = nil, _ body: (TransactionSummary) throws -> Bool) throws {
        var after: UInt64?  // the last one handed over, so a retry goes on from there
        _ = try withIndex(repairing: true) { index, _ in
            let names = try index.names().names
            try Self.walk(index, productID: productID, after: after) { record in
                guard try body(try TransactionSummary(record, names: names)) else { return false }
                after = record.id
                return true
            }
        }
    }

    /// Calls `body` with the latest version of each transaction whose summary `include`
    /// accepts, in identifier order, until `body` returns false. Only those lines of the
    /// journal are read. Outside `update` only: it may take the lock.
    /// - Parameter productID: only this product's transactions.
    public func forEachTransaction(
        productID: String? = nil, where include: (TransactionSummary) throws -> Bool = { _ in true },
        _ body: (Transaction) throws -> Void
    ) throws {
        var after: UInt64?
        _ = try withIndex(repairing: true) { index, journal in
            let names = try index.names().names
            try Self.walk(index, productID: productID, after: after) { record in
                if try include(try TransactionSummary(record, names: names)) {
                    try body(try Self.transaction(at: record, index: index, journal: journal))
                }
                after = record.id
                return true
            }
        }
    }

    /// Calls `body` with the latest version of each of `ids` that names a transaction, in
    /// the order given. Outside `update` only.
    public func forEachTransaction(ids: [UInt64], _ body: (Transaction) throws -> Void) throws {
        var done = 0  // ids handed over, so a retry goes on from there
        _ = try withIndex(repairing: true) { index, journal in
            for id in ids[done...] {
                if let position = try index.position(of: id) {
                    let record = try index.record(at: position)
                    if !record.isDeleted { try body(try Self.transaction(at: record, index: index, journal: journal)) }
                }
                done += 1
            }
        }
    }

    /// Calls `body` with the summary of each of `ids` that names a transaction, in the order
    /// given, from the index alone. Outside `update` only.
    public func forEachSummary(ids: [UInt64], _ body: (TransactionSummary) throws -> Void) throws {
        var done = 0
        _ = try withIndex(repairing: true) { index, _ in
            let names = try index.names().names
            for id in ids[done...] {
                if let position = try index.position(of: id) {
                    let record = try index.record(at: position)
                    if !record.isDeleted { try body(try TransactionSummary(record, names: names)) }
                }
                done += 1
            }
        }
    }

    /// Calls `body` with the summary of each transaction in the order they were last changed
    /// (`descending` reverses it), from the one after the change at journal offset `after`,
    /// until `body` returns false: Get Transaction History's order. The order is kept in
    /// memory between calls (`ModificationOrder`), so a page reads its own records only.
    /// Outside `update` only.
    public func forEachSummaryByModification(
        descending: Bool, after offset: UInt64?, _ body: (TransactionSummary) throws -> Bool
    ) throws {
        var resume = offset
        _ = try withIndex(repairing: true) { index, file in
            let names = try index.names().names
            let journal = index.header.journal
            var order =
                try cache.lastModificationOrder?.updated(for: index, journal: journal, file: file)
                ?? ModificationOrder(index, journal: journal)
            var rebuilt = false
            var next = order.start(after: resume, descending: descending)
            while next >= 0, next < order.entries.count {
                let entry = order.entries[next]
                let record = try index.record(at: entry.position)
                guard record.id == entry.id else {
                    // The index was rebuilt under a kept order: build it again, once.
                    if rebuilt { throw IndexDamage(detail: "record \(entry.position) is not \(entry.id)") }
                    order = try ModificationOrder(index, journal: journal)
                    rebuilt = true
                    next = order.start(after: resume, descending: descending)
                    continue
                }
                next += descending ? -1 : 1
                // A stale entry: the transaction changed again, and sorts by its newer line.
                guard record.offset == entry.offset else { continue }
                resume = entry.offset
                if record.isDeleted { continue }
                guard try body(try TransactionSummary(record, names: names)) else { break }
            }
            cache.lastModificationOrder = order
        }
    }

    /// The transactions of the chain `originalID` — a purchase and its renewals and upgrades —
    /// in identifier order, deleted ones left out. Outside `update` only.
    public func chain(_ originalID: UInt64) throws -> [Transaction] {
        try chain(originalID, underLock: false)
    }

    /// The same; with `underLock`, for use inside `update` (where the index is not repaired
    /// through the lock, which is already held).
    func chain(_ originalID: UInt64, underLock: Bool) throws -> [Transaction] {
        try withIndex(repairing: !underLock) { index, journal in
            var chain: [Transaction] = []
            if let head = try index.position(of: originalID), try index.record(at: head).originalID == originalID {
                var next: Int? = head
                while let position = next {
                    let record = try index.record(at: position)
                    if !record.isDeleted {
                        chain.append(try Self.transaction(at: record, index: index, journal: journal))
                    }
                    next = record.nextOfChain.map(Int.init)
                }
            } else {
                // No first transaction to start from (a hand-edited journal): look at every one.
                try index.forEachRecord { _, record in
                    if record.originalID == originalID, !record.isDeleted {
                        chain.append(try Self.transaction(at: record, index: index, journal: journal))
                    }
                    return true
                }
            }
            return chain
        } ?? []
    }

    /// Calls `body` with each record in identifier order — a product's through its links —
    /// past `after`, until it returns false. Deleted transactions are passed over.
    static func walk(
        _ index: IndexReader, productID: String?, after: UInt64?, _ body: (TransactionIndex.Record) throws -> Bool
    ) throws {
        guard let productID else {
            let start = try after.flatMap { try index.position(of: $0).map { $0 + 1 } } ?? 0
            try index.forEachRecord(from: start) { _, record in
                guard after.map({ record.id > $0 }) ?? true, !record.isDeleted else { return true }
                return try body(record)
            }
            return
        }
        guard let key = try index.key(of: productID) else { return }
        var next = try index.names().slots[Int(key)].head.map(Int.init)
        while let position = next {
            let record = try index.record(at: position)
            guard record.productKey == key else {
                throw IndexDamage(detail: "record \(position) is not of \(productID)")
            }
            if after.map({ record.id > $0 }) ?? true, !record.isDeleted { guard try body(record) else { return } }
            next = record.nextOfProduct.map(Int.init)
        }
    }

    /// The transaction whose latest version `record` points at.
    static func transaction(at record: TransactionIndex.Record, index: IndexReader, journal: JournalFile) throws
        -> Transaction
    {
        guard record.offset < index.header.coveredLength else {
            throw IndexDamage(detail: "record \(record.id) points past the journal's last line")
        }
        var end = record.offset
        let transaction: Transaction
        do {
            transaction = try journal.line(at: record.offset) { (line) throws(JournalLine.Failure) in
                end = record.offset + UInt64(line.count) + 1
                return try JournalLine.transaction(line)
            }
        } catch {
            switch error {
            case .io(let failure): throw StateError.unreadable(path: failure.path, reason: failure.reason)
            case .missing(let offset): throw IndexDamage(detail: "no line starts at byte \(offset) of the journal")
            case .body(let failure):
                // Through the file, an offset that lands mid-line means the index is stale:
                // the one built in memory from the journal decides.
                if index.isFile { throw IndexDamage(detail: "the line at byte \(record.offset) does not read") }
                throw corruptLine(failure, path: journal.path, end: end)
            }
        }
        guard transaction.id == record.id, transaction.originalID == record.originalID else {
            throw IndexDamage(detail: "record \(record.id) points at transaction \(transaction.id)")
        }
        return transaction
    }

    static func corruptLine(_ failure: JournalLine.Failure, path: String, end: UInt64) -> StateError {
        switch failure {
        case .notJSON(let message):
            .corrupt(path: path, detail: "the line ending at byte \(end) is not JSON: \(message)")
        case .notTransaction(let message):
            .corrupt(path: path, detail: "the line ending at byte \(end) is not a transaction: \(message)")
        }
    }

    // MARK: Keeping it

    /// Makes the index file one to trust for the journal as it is now, rebuilding it when it
    /// is missing, stale or damaged. Under the lock.
    /// - Returns: the index, open; nil when there is no journal.
    /// - Throws: `.corrupt` naming a journal line that is not a transaction, `.unreadable`.
    func ensureIndex() throws(StateError) -> IndexReader? {
        let journal = FileSignature.of(location.journalPath)
        guard journal != .absent else { return nil }
        let boot = SystemBoot.identifier()
        if let index = IndexReader.open(path: location.indexPath, journal: journal, boot: boot) { return index }
        return try rebuildIndex(journal: journal, boot: boot)
    }

    /// Rebuilds the index file from the journal, under the lock. When the file cannot be
    /// written (a full disk) the index lives in memory for this command, and the next one
    /// tries again.
    @discardableResult
    func rebuildIndex(journal: FileSignature, boot: [UInt8]) throws(StateError) -> IndexReader {
        let builder = try IndexBuilder.build(try openJournal())
        _ = try? POSIXFile.removeTemporaries(of: location.indexPath)
        if (try? builder.write(to: location.indexPath, journal: journal, boot: boot)) != nil,
            let index = IndexReader.open(path: location.indexPath, journal: journal, boot: boot)
        {
            return index
        }
        return try Self.memoryIndex(builder, journal: journal, boot: boot)
    }

    /// Takes the lines just appended to the journal into the index, under the lock, after
    /// the snapshot is written: in place when it can, else by a rebuild. Never fails the
    /// change, which is saved: an index left behind is stale, and rebuilt next time.
    func updateIndex(
        _ lines: [(transaction: Transaction, offset: UInt64)], index: IndexReader?, coveredLength: UInt64
    ) {
        let journal = FileSignature.of(location.journalPath)
        if let index, index.isFile,
            IndexAppender.apply(
                lines, to: location.indexPath, reader: index, journal: journal, coveredLength: coveredLength)
        {
            return
        }
        _ = try? rebuildIndex(journal: journal, boot: SystemBoot.identifier())
    }

    /// The index and the journal to read through it; nil when there is no journal.
    /// - Parameter repairing: take the lock to rebuild an index that does not check; false
    ///   under the lock, where `update` has made it right, and it is built in memory instead.
    private func index(repairing: Bool) throws -> (IndexReader, JournalFile)? {
        if repairing { try settleInterruptedCommit() }
        let signature = FileSignature.of(location.journalPath)
        guard signature != .absent else { return nil }
        let boot = SystemBoot.identifier()
        var index = IndexReader.open(path: location.indexPath, journal: signature, boot: boot)
        if index == nil, repairing {
            do {
                index = try holdingLock {
                    try ensureIndex()
                }
            } catch StateError.cannotCreate {
                // A read-only folder: built in memory below.
            }
        }
        guard let journal = try openJournal() else { return nil }
        if let index { return (index, journal) }
        return (try Self.memoryIndex(try IndexBuilder.build(journal), journal: signature, boot: boot), journal)
    }

    /// Runs `body` on the index. When the file turns out damaged part-way, it is removed (the
    /// next change rebuilds it) and `body` runs again on an index built in memory; a `body`
    /// that streams keeps its place and goes on from there.
    func withIndex<Result>(repairing: Bool, _ body: (IndexReader, JournalFile) throws -> Result) throws
        -> Result?
    {
        guard let (index, journal) = try index(repairing: repairing) else { return nil }
        do {
            return try body(index, journal)
        } catch is IndexDamage where index.isFile {
            try? POSIXFile.remove(location.indexPath)
            guard let rebuilt = try openJournal() else { return nil }
            let memory = try Self.memoryIndex(
                try IndexBuilder.build(rebuilt), journal: FileSignature.of(location.journalPath),
                boot: SystemBoot.identifier())
            return try body(memory, rebuilt)
        } catch let damage as IndexDamage {
            throw StateError.corrupt(
                path: location.journalPath, detail: "it changed while it was read (\(damage.detail))")
        }
    }

    private static func memoryIndex(_ builder: IndexBuilder, journal: FileSignature, boot: [UInt8])
        throws(StateError)
        -> IndexReader
    {
        do {
            return try IndexReader(memory: builder.bytes(journal: journal, boot: boot))
        } catch {
            throw .corrupt(
                path: StateLocation.indexFileName, detail: "the index cannot hold this journal: \(error.detail)")
        }
    }

    private func openJournal() throws(StateError) -> JournalFile? {
        do {
            return try JournalFile(path: location.journalPath)
        } catch {
            throw .unreadable(path: error.path, reason: error.reason)
        }
    }
}
