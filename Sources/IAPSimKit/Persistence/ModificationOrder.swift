/// The index's records in the order their transactions were last changed: by where the
/// journal line of each one's latest version starts. Apple, "Get Transaction History": the
/// response "sorts the transaction records by their recently modified date", and a `revision`
/// asks for what changed after it. The journal is only appended to, each change a new line
/// after all before it, so a line's offset is its transaction's place in that order.
///
/// Kept in memory by a process that serves pages (`StateCache`), so a page costs a binary
/// search and the page's own records, not a pass over the whole history. It is brought up to
/// date by the journal lines written since it was built: each is a transaction's new latest
/// version and goes to the end. The entry a transaction had before stays where it was and is
/// passed over as it is read (its record now points further on); when such stale entries are
/// half of all, the order is built again. An entry whose position no longer holds its
/// transaction (a rebuilt or replaced index) means building it again too.
struct ModificationOrder {
    struct Entry {
        /// Where the line of the version it stands for starts.
        var offset: UInt64
        var id: UInt64
        var position: Int
    }

    /// Sorted by offset; some may be stale.
    private(set) var entries: [Entry] = []
    /// The journal whose index it was built from, for the device and inode.
    private(set) var journal: FileSignature
    /// Where the journal lines it holds end: the lines from here on are newer changes.
    private var coveredLength: UInt64
    /// The index's records it holds an entry for, and its entries that are stale.
    private var records: Int
    private var stale = 0

    /// Builds the order of every record in `index`.
    init(_ index: IndexReader, journal: FileSignature) throws {
        self.journal = journal
        coveredLength = index.header.coveredLength
        records = index.recordCount
        try index.forEachRecord { position, record in
            entries.append(Entry(offset: record.offset, id: record.id, position: position))
            return true
        }
        entries.sort { $0.offset < $1.offset }
    }

    /// The order for `index` of `journal`, read through `file`, from this one with the lines
    /// written since added; nil when `index` is not a later version of the one it was built
    /// from, or when it would be mostly stale.
    func updated(for index: IndexReader, journal: FileSignature, file: JournalFile) throws -> ModificationOrder? {
        let limit = index.header.coveredLength
        if journal == self.journal, limit == coveredLength, index.recordCount == records { return self }
        guard journal.device == self.journal.device, journal.inode == self.journal.inode,
            journal.size >= self.journal.size, limit >= coveredLength
        else { return nil }
        // The last line it holds must still be that transaction's: after an erase a new
        // journal may reuse the inode and grow past the old length.
        if let last = entries.last {
            let id = try? file.line(at: last.offset) { (line) throws(JournalLine.Failure) in
                try JournalLine.record(line, offset: last.offset) { _ in 0 }.id
            }
            guard id == last.id else { return nil }
        }
        var order = self
        order.journal = journal
        guard limit > coveredLength else { return order }
        var start = coveredLength
        var added: [(offset: UInt64, id: UInt64)] = []
        do throws(JournalReadError<JournalLine.Failure>) {
            try file.forEachLine(from: coveredLength) { (line, end) throws(JournalLine.Failure) in
                defer { start = end }
                guard end <= limit, !line.isEmpty else { return }
                added.append((start, try JournalLine.record(line, offset: start) { _ in 0 }.id))
            }
        } catch {
            return nil  // unreadable here: built again from the index
        }
        for (offset, id) in added {
            guard let position = try index.position(of: id) else { return nil }
            order.entries.append(Entry(offset: offset, id: id, position: position))
        }
        // A line of a transaction it already held leaves that one's entry stale.
        order.stale += max(0, added.count - (index.recordCount - records))
        order.records = index.recordCount
        order.coveredLength = limit
        return order.stale * 2 > order.entries.count ? nil : order
    }

    /// The index of the first entry after `offset` in ascending order (or, descending, the
    /// last entry before it): where a page that starts after `offset` begins.
    func start(after offset: UInt64?, descending: Bool) -> Int {
        guard let offset else { return descending ? entries.count - 1 : 0 }
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].offset <= offset { low = middle + 1 } else { high = middle }
        }
        if !descending { return low }
        var below = low - 1
        while below >= 0, entries[below].offset >= offset { below -= 1 }
        return below
    }
}
