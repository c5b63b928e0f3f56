#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Brings the index file up to date with lines just appended to the journal, in place: new
/// records at the end, new versions over their records, links and name slots updated, and
/// the header last. Costs the same with 10 or 1,000,000 transactions behind it.
///
/// It handles what iapsim appends: new transactions with identifiers above every recorded
/// one, and later versions that keep their product and chain. Anything else — a purchase
/// approved after later ones, a full name table — returns false, and the caller rebuilds.
struct IndexAppender {
    private let reader: IndexReader
    private var header: TransactionIndex.Header
    private var slots: [TransactionIndex.Slot]
    private var names: [String]
    private var heap: [UInt8] = []
    // Arrays, not dictionaries: a purchase changes three or four records, and the first
    // dictionary of a type a process makes costs more (its metadata, built at run time from
    // a static binary's conformance tables) than the rest of this update.
    private var changedRecords: [(position: Int, record: TransactionIndex.Record)] = []
    private var changedSlots: [Int] = []

    /// Applies `lines` — each transaction with the offset of its line — to the index `reader`
    /// has open, and records `journal` as what it now covers.
    /// - Returns: false when the index cannot take them in place (nothing was written, or what
    ///   was is not yet trusted: the header is written last).
    static func apply(
        _ lines: [(transaction: Transaction, offset: UInt64)], to path: String, reader: IndexReader,
        journal: FileSignature, coveredLength: UInt64
    ) -> Bool {
        guard let first = lines.first, first.offset == reader.header.coveredLength,
            var appender = try? IndexAppender(reader)
        else { return false }
        for (transaction, offset) in lines {
            guard (try? appender.add(transaction, offset: offset)) == true else { return false }
        }
        appender.header.journal = journal
        appender.header.coveredLength = coveredLength
        return appender.write(to: path)
    }

    private init(_ reader: IndexReader) throws(IndexDamage) {
        self.reader = reader
        header = reader.header
        (slots, names) = try reader.names()
    }

    private func record(_ position: Int) throws(IndexDamage) -> TransactionIndex.Record {
        if let changed = changedRecords.last(where: { $0.position == position }) { return changed.record }
        return try reader.record(at: position)
    }

    private mutating func change(_ position: Int, to record: TransactionIndex.Record) {
        changedRecords.removeAll { $0.position == position }
        changedRecords.append((position, record))
    }

    private func position(of id: UInt64) throws(IndexDamage) -> Int? {
        if let added = changedRecords.first(where: { $0.record.id == id && $0.position >= reader.recordCount }) {
            return added.position
        }
        return try reader.position(of: id)
    }

    private mutating func key(of name: String) -> UInt32? {
        let hash = IndexChecksum.name(name.utf8)
        if let key = slots.indices.first(where: { slots[$0].hash == hash && names[$0] == name }) { return UInt32(key) }
        let bytes = Array(name.utf8)
        guard slots.count < Int(header.nameCapacity),
            Int(header.heapUsed) + heap.count + bytes.count <= Int(header.heapCapacity)
        else { return nil }
        slots.append(
            TransactionIndex.Slot(
                hash: hash, heapOffset: header.heapUsed + UInt32(heap.count), length: UInt32(bytes.count)))
        names.append(name)
        heap += bytes
        changedSlots.append(slots.count - 1)
        return UInt32(slots.count - 1)
    }

    /// - Returns: false for a line the index cannot take in place.
    private mutating func add(_ transaction: Transaction, offset: UInt64) throws(IndexDamage) -> Bool {
        guard let productKey = key(of: transaction.productID) else { return false }
        var groupKey: UInt32?
        if let group = transaction.subscriptionGroupID {
            guard let key = key(of: group) else { return false }
            groupKey = key
        }
        // As the line reads back: `ISO8601Date` writes whole seconds.
        var new = TransactionIndex.Record(
            transaction.asStored, offset: offset, productKey: productKey, groupKey: groupKey)
        if transaction.id <= header.maxID {
            guard let position = try position(of: transaction.id) else { return false }
            var old = try record(position)
            guard old.keepsLinks(of: new) else { return false }
            old.update(from: new)
            change(position, to: old)
            return true
        }
        guard header.recordCount < UInt64(UInt32.max - 1) else { return false }
        let position = Int(header.recordCount)
        if new.originalID == new.id {
            new.chainTail = UInt32(position)
        } else {
            guard let headPosition = try self.position(of: new.originalID) else { return false }
            var head = try record(headPosition)
            guard head.originalID == new.originalID else { return false }
            let tailPosition = Int(head.chainTail ?? UInt32(headPosition))
            if tailPosition == headPosition {
                head.nextOfChain = UInt32(position)
            } else {
                var tail = try record(tailPosition)
                tail.nextOfChain = UInt32(position)
                change(tailPosition, to: tail)
            }
            head.chainTail = UInt32(position)
            change(headPosition, to: head)
        }
        let key = Int(productKey)
        if let tailPosition = slots[key].tail {
            var tail = try record(Int(tailPosition))
            tail.nextOfProduct = UInt32(position)
            change(Int(tailPosition), to: tail)
        } else {
            slots[key].head = UInt32(position)
        }
        slots[key].tail = UInt32(position)
        if !changedSlots.contains(key) { changedSlots.append(key) }
        change(position, to: new)
        header.recordCount += 1
        header.maxID = new.id
        return true
    }

    /// Writes the changes, the header last; false when a write fails.
    private mutating func write(to path: String) -> Bool {
        header.heapUsed += UInt32(heap.count)
        header.nameCount = UInt32(slots.count)
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        do throws(POSIXFile.Failure) {
            if !heap.isEmpty {
                try POSIXFile.writeAt(
                    heap, to: fd, at: UInt64(header.heapOffset) + UInt64(header.heapUsed) - UInt64(heap.count),
                    path: path)
            }
            for key in changedSlots {
                var out = IndexBytes(count: TransactionIndex.slotSize)
                slots[key].encode(into: &out, at: 0, key: key)
                try POSIXFile.writeAt(
                    out.bytes, to: fd, at: UInt64(TransactionIndex.headerSize + key * TransactionIndex.slotSize),
                    path: path)
            }
            for (position, record) in changedRecords {
                var out = IndexBytes(count: TransactionIndex.recordSize)
                record.encode(into: &out, at: 0, position: position)
                let offset = UInt64(header.recordsOffset) + UInt64(position) * UInt64(TransactionIndex.recordSize)
                try POSIXFile.writeAt(out.bytes, to: fd, at: offset, path: path)
            }
            try POSIXFile.writeAt(header.encoded(), to: fd, at: 0, path: path)
            return true
        } catch {
            return false
        }
    }
}
