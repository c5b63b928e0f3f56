import Foundation

/// Builds the index from the journal, from scratch: every line read in order, the last
/// version of each transaction kept, records put in identifier order and linked by product
/// and by chain.
struct IndexBuilder {
    private(set) var records: [TransactionIndex.Record] = []
    private var slots: [TransactionIndex.Slot] = []
    private var heap: [UInt8] = []
    /// Keys by the hash of their name's bytes.
    private var keys: [UInt64: [UInt32]] = [:]
    /// The key found last, tried first: runs of one product are common.
    private var lastKey: UInt32?
    /// Whether `records` is in identifier order so far: iapsim appends new identifiers in
    /// order, and only a purchase approved or resolved after later ones comes out of it.
    private var inOrder = true
    /// Where the last complete line ends.
    private(set) var coveredLength: UInt64 = 0

    /// The index of every line of `journal`.
    /// - Throws: `.corrupt` naming the first line that is not a transaction, `.unreadable`.
    static func build(_ journal: JournalFile?) throws(StateError) -> IndexBuilder {
        var builder = IndexBuilder()
        if let journal {
            var start: UInt64 = 0
            do throws(JournalReadError<StateError>) {
                try journal.forEachLine(from: 0) { (line, end) throws(StateError) in
                    defer { start = end }
                    guard !line.isEmpty else { return }
                    do throws(JournalLine.Failure) {
                        builder.add(try JournalLine.record(line, offset: start) { builder.key(of: $0) })
                    } catch {
                        throw StateStore.corruptLine(error, path: journal.path, end: end)
                    }
                }
            } catch {
                switch error {
                case .io(let failure): throw .unreadable(path: failure.path, reason: failure.reason)
                case .missing: break  // not raised when reading in order
                case .body(let error): throw error
                }
            }
            builder.coveredLength = start
        }
        builder.finish()
        return builder
    }

    mutating func add(_ record: TransactionIndex.Record) {
        if inOrder, let previous = records.last, record.id <= previous.id {
            if let position = position(of: record.id) {
                records[position] = record  // a later version replaces the earlier one
                return
            }
            inOrder = false
        }
        records.append(record)
    }

    /// The key of a product or group identifier, from its UTF-8 bytes; added on first sight.
    mutating func key(of name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        if let lastKey, isName(lastKey, name) { return lastKey }
        let hash = IndexChecksum.name(name)
        let key: UInt32
        if let known = keys[hash]?.first(where: { isName($0, name) }) {
            key = known
        } else {
            key = UInt32(slots.count)
            slots.append(TransactionIndex.Slot(hash: hash, heapOffset: UInt32(heap.count), length: UInt32(name.count)))
            heap += name
            keys[hash, default: []].append(key)
        }
        lastKey = key
        return key
    }

    private func isName(_ key: UInt32, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let slot = slots[Int(key)]
        guard Int(slot.length) == name.count else { return false }
        return heap.withUnsafeBufferPointer { heap in
            name.isEmpty || memcmp(heap.baseAddress! + Int(slot.heapOffset), name.baseAddress!, name.count) == 0
        }
    }

    /// The position of `id` among records in identifier order.
    private func position(of id: UInt64) -> Int? {
        guard let first = records.first?.id, id >= first else { return nil }
        if id - first < UInt64(records.count), records[Int(id - first)].id == id { return Int(id - first) }
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].id == id { return middle }
            if records[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Puts the records in identifier order, keeping each transaction's last version, and
    /// links them: each product's records in order from its slot, each chain's from its first
    /// record (the one whose identifier is the chain's `originalID`).
    private mutating func finish() {
        if !inOrder {
            // Stable: of the versions of one transaction, the last in the journal stays last.
            let ordered = records.enumerated().sorted { ($0.element.id, $0.offset) < ($1.element.id, $1.offset) }
            records = []
            records.reserveCapacity(ordered.count)
            for (_, record) in ordered {
                if let previous = records.last, previous.id == record.id {
                    records[records.count - 1] = record
                } else {
                    records.append(record)
                }
            }
            inOrder = true
        }
        for position in records.indices {
            let record = records[position]
            let key = Int(record.productKey)
            if let tail = slots[key].tail {
                records[Int(tail)].nextOfProduct = UInt32(position)
            } else {
                slots[key].head = UInt32(position)
            }
            slots[key].tail = UInt32(position)
            if record.originalID == record.id {
                records[position].chainTail = UInt32(position)
            } else if let head = self.position(of: record.originalID), head < position,
                records[head].originalID == record.originalID
            {
                let tail = Int(records[head].chainTail ?? UInt32(head))
                records[tail].nextOfChain = UInt32(position)
                records[head].chainTail = UInt32(position)
            }
            // Else a chain without its first transaction (a hand-edited journal): its records
            // stay unlinked, and `StateStore.chain` finds them by a scan.
        }
    }

    /// The header of this index, made from the journal as `journal` describes it.
    func header(journal: FileSignature, boot: [UInt8]) -> TransactionIndex.Header {
        var header = TransactionIndex.Header()
        header.journal = journal
        header.boot = boot
        header.recordCount = UInt64(records.count)
        header.nameCount = UInt32(slots.count)
        header.nameCapacity = UInt32(max(64, 2 * slots.count))
        header.heapUsed = UInt32(heap.count)
        header.heapCapacity = UInt32(max(4096, 2 * heap.count))
        header.maxID = records.last?.id ?? 0
        header.coveredLength = coveredLength
        return header
    }

    /// The header, name slots and heap: everything before the records.
    private func front(_ header: TransactionIndex.Header) -> [UInt8] {
        var out = IndexBytes(count: header.recordsOffset)
        out.put(header.encoded(), at: 0)
        for (key, slot) in slots.enumerated() {
            slot.encode(into: &out, at: TransactionIndex.headerSize + key * TransactionIndex.slotSize, key: key)
        }
        out.put(heap, at: header.heapOffset)
        return out.bytes
    }

    private func encodedRecords(_ range: Range<Int>) -> [UInt8] {
        var out = IndexBytes(count: range.count * TransactionIndex.recordSize)
        for position in range {
            records[position].encode(
                into: &out, at: (position - range.lowerBound) * TransactionIndex.recordSize, position: position)
        }
        return out.bytes
    }

    /// The whole index file, for one kept in memory.
    func bytes(journal: FileSignature, boot: [UInt8]) -> [UInt8] {
        front(header(journal: journal, boot: boot)) + encodedRecords(records.indices)
    }

    /// Writes the index to `path`, replacing any there, without fsync.
    func write(to path: String, journal: FileSignature, boot: [UInt8]) throws(POSIXFile.Failure) {
        let header = header(journal: journal, boot: boot)
        try POSIXFile.replaceUnsynced(path) { (fd) throws(POSIXFile.Failure) in
            let front = front(header)
            try POSIXFile.writeAt(front, to: fd, at: 0, path: path)
            var offset = UInt64(front.count)
            var start = 0
            while start < records.count {
                let end = min(records.count, start + 8192)
                let chunk = encodedRecords(start..<end)
                try POSIXFile.writeAt(chunk, to: fd, at: offset, path: path)
                offset += UInt64(chunk.count)
                start = end
            }
        }
    }
}
