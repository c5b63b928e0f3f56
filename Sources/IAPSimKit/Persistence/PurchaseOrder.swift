/// The index's records sorted by purchase date, then identifier: the order Get Transaction
/// History pages in. Kept in memory by a process that serves pages (`StateCache`), so a page
/// costs a binary search and the page's own records, not a pass over the whole history.
///
/// A transaction's sort key never changes (a refund or an upgrade writes a new version with
/// the same purchase date), and new transactions take the records after the last, so the
/// order is brought up to date by adding the records past the ones it has. Positions are
/// checked against the index as they are used; one that no longer holds its transaction (a
/// rebuilt or replaced index) means building the order again.
struct PurchaseOrder {
    struct Entry {
        var date: Double
        var id: UInt64
        var position: Int
    }

    /// Sorted by (date, id).
    private(set) var entries: [Entry] = []
    /// The journal whose index it was built from, for the device and inode.
    private(set) var journal: FileSignature
    /// How many records of the index it holds: positions 0..<covered.
    private var covered = 0
    /// The transaction at position `covered - 1`, and its purchase date.
    private var lastCovered: (id: UInt64, date: Double)?

    /// Builds the order of every record in `index`.
    init(_ index: IndexReader, journal: FileSignature) throws {
        self.journal = journal
        try add(index)
    }

    /// The order for `index` (of `journal`) from this one, with the records it lacks added;
    /// nil when `index` is not a later version of the one it was built from.
    func updated(for index: IndexReader, journal: FileSignature) throws -> PurchaseOrder? {
        guard journal.device == self.journal.device, journal.inode == self.journal.inode,
            journal.size >= self.journal.size, index.recordCount >= covered
        else { return nil }
        // The last record it holds must still be where it was.
        // The last record it holds must still be where it was, with the same date: after an
        // erase, identifiers start again at 1 and a new journal may reuse the inode.
        if covered > 0 {
            let last = try index.record(at: covered - 1)
            guard last.id == lastCovered?.id, last.purchaseDate.timeIntervalSince1970 == lastCovered?.date else {
                return nil
            }
        }
        var order = self
        order.journal = journal
        try order.add(index)
        return order
    }

    private mutating func add(_ index: IndexReader) throws {
        var added: [Entry] = []
        try index.forEachRecord(from: covered) { position, record in
            added.append(Entry(date: record.purchaseDate.timeIntervalSince1970, id: record.id, position: position))
            return true
        }
        covered = index.recordCount
        guard !added.isEmpty else { return }
        lastCovered = added.max { $0.position < $1.position }.map { ($0.id, $0.date) }
        added.sort { ($0.date, $0.id) < ($1.date, $1.id) }
        if let last = entries.last, let first = added.first, (last.date, last.id) > (first.date, first.id) {
            entries.append(contentsOf: added)
            entries.sort { ($0.date, $0.id) < ($1.date, $1.id) }
        } else {
            entries.append(contentsOf: added)  // the usual case: new purchases are the latest
        }
    }

    /// The index of the first entry after `key` in ascending order (or, descending, the
    /// entry count before it): where a page that starts after `key` begins.
    func start(after key: (date: Double, id: UInt64)?, descending: Bool) -> Int {
        guard let key else { return descending ? entries.count - 1 : 0 }
        // The first entry whose key is greater than `key`.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if (entries[middle].date, entries[middle].id) <= (key.date, key.id) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        if !descending { return low }
        // Descending: the last entry whose key is less than `key`.
        var below = low - 1
        while below >= 0, (entries[below].date, entries[below].id) >= (key.date, key.id) { below -= 1 }
        return below
    }
}
