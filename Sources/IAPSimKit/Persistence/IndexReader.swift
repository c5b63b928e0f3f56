#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An index opened for reading: the file, once its header is checked against the journal,
/// or bytes built in memory. Each record and name slot is checked as it is read; one that
/// does not check throws `IndexDamage`, and the caller rebuilds.
final class IndexReader {
    let header: TransactionIndex.Header
    private let fd: Int32
    private let memory: [UInt8]
    private lazy var loadedNames: Result<(slots: [TransactionIndex.Slot], names: [String]), IndexDamage> = loadNames()

    /// Opens the index at `path` if it is one to trust for the journal as `journal` describes
    /// it, in this boot; nil otherwise, for any reason: the caller rebuilds.
    static func open(path: String, journal: FileSignature, boot: [UInt8]) -> IndexReader? {
        let fd = openReadOnly(path)
        guard fd >= 0 else { return nil }
        var info = stat()
        var bytes = [UInt8](repeating: 0, count: TransactionIndex.headerSize)
        guard fstat(fd, &info) == 0, Self.read(fd, at: 0, into: &bytes) == bytes.count,
            let header = TransactionIndex.Header(bytes), header.journal == journal, header.boot == boot,
            UInt64(info.st_size) == header.fileSize
        else {
            close(fd)
            return nil
        }
        return IndexReader(header: header, fd: fd, memory: [])
    }

    /// An index built in memory (`IndexBuilder.bytes()`).
    init(memory: [UInt8]) throws(IndexDamage) {
        guard memory.count >= TransactionIndex.headerSize,
            let header = TransactionIndex.Header(Array(memory[0..<TransactionIndex.headerSize])),
            UInt64(memory.count) == header.fileSize
        else { throw IndexDamage(detail: "the header does not check") }
        self.header = header
        self.fd = -1
        self.memory = memory
    }

    private init(header: TransactionIndex.Header, fd: Int32, memory: [UInt8]) {
        self.header = header
        self.fd = fd
        self.memory = memory
    }

    deinit { if fd >= 0 { close(fd) } }

    var recordCount: Int { Int(header.recordCount) }

    /// Whether this is the file, not an index built in memory.
    var isFile: Bool { fd >= 0 }

    /// `count` bytes at `offset`, which the header's layout says are there.
    func bytes(at offset: Int, count: Int) throws(IndexDamage) -> IndexBytes {
        guard offset >= 0, count >= 0, UInt64(offset + count) <= header.fileSize else {
            throw IndexDamage(detail: "a read past the end")
        }
        if fd < 0 { return IndexBytes(Array(memory[offset..<offset + count])) }
        var buffer = [UInt8](repeating: 0, count: count)
        guard Self.read(fd, at: offset, into: &buffer) == count else {
            throw IndexDamage(detail: "the file is shorter than its header says")
        }
        return IndexBytes(buffer)
    }

    func record(at position: Int) throws(IndexDamage) -> TransactionIndex.Record {
        guard position >= 0, position < recordCount else { throw IndexDamage(detail: "a link past the last record") }
        let base = header.recordsOffset + position * TransactionIndex.recordSize
        guard
            let record = TransactionIndex.Record(
                try bytes(at: base, count: TransactionIndex.recordSize), at: 0, position: position)
        else { throw IndexDamage(detail: "record \(position) does not check") }
        return record
    }

    /// Calls `body` with each record from `position` on, in identifier order, until it
    /// returns false; reads 64 KB at a time.
    /// - Throws: what `body` throws, or `IndexDamage`.
    func forEachRecord(from position: Int = 0, _ body: (Int, TransactionIndex.Record) throws -> Bool) throws {
        let perChunk = 64 * 1024 / TransactionIndex.recordSize
        var next = max(0, position)
        while next < recordCount {
            let count = min(perChunk, recordCount - next)
            let chunk = try bytes(
                at: header.recordsOffset + next * TransactionIndex.recordSize,
                count: count * TransactionIndex.recordSize)
            for index in 0..<count {
                let at = index * TransactionIndex.recordSize
                guard let record = TransactionIndex.Record(chunk, at: at, position: next + index) else {
                    throw IndexDamage(detail: "record \(next + index) does not check")
                }
                guard try body(next + index, record) else { return }
            }
            next += count
        }
    }

    /// The position of the record of transaction `id`, if there is one. Identifiers are
    /// mostly consecutive, so the first guess is usually the place; else a binary search.
    func position(of id: UInt64) throws(IndexDamage) -> Int? {
        guard recordCount > 0, id <= header.maxID else { return nil }
        let first = try record(at: 0).id
        guard id >= first else { return nil }
        if id - first < UInt64(recordCount), try record(at: Int(id - first)).id == id { return Int(id - first) }
        var low = 0
        var high = recordCount
        while low < high {
            let middle = (low + high) / 2
            let found = try record(at: middle).id
            if found == id { return middle }
            if found < id { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Every name slot and its name, by key.
    func names() throws(IndexDamage) -> (slots: [TransactionIndex.Slot], names: [String]) {
        try loadedNames.get()
    }

    /// The key of product or group identifier `name`, if the index has it.
    func key(of name: String) throws(IndexDamage) -> UInt32? {
        let names = try names().names
        let hash = IndexChecksum.name(name.utf8)
        let slots = try self.names().slots
        return slots.indices.first { slots[$0].hash == hash && names[$0] == name }.map { UInt32($0) }
    }

    private func loadNames() -> Result<(slots: [TransactionIndex.Slot], names: [String]), IndexDamage> {
        do throws(IndexDamage) {
            let count = Int(header.nameCount)
            let table = try bytes(at: TransactionIndex.headerSize, count: count * TransactionIndex.slotSize)
            let heap = try bytes(at: header.heapOffset, count: Int(header.heapUsed)).bytes
            var slots: [TransactionIndex.Slot] = []
            var names: [String] = []
            for key in 0..<count {
                guard let slot = TransactionIndex.Slot(table, at: key * TransactionIndex.slotSize, key: key),
                    UInt64(slot.heapOffset) + UInt64(slot.length) <= UInt64(heap.count),
                    slot.head.map({ $0 < header.recordCount }) ?? true,
                    slot.tail.map({ $0 < header.recordCount }) ?? true
                else { throw IndexDamage(detail: "name slot \(key) does not check") }
                let bytes = heap[Int(slot.heapOffset)..<Int(slot.heapOffset + slot.length)]
                guard IndexChecksum.name(bytes) == slot.hash, let name = String(validating: bytes, as: UTF8.self) else {
                    throw IndexDamage(detail: "name \(key) does not match its hash")
                }
                slots.append(slot)
                names.append(name)
            }
            return .success((slots, names))
        } catch {
            return .failure(error)
        }
    }

    /// Reads until `buffer` is full or the file ends; the count read, or -1.
    static func read(_ fd: Int32, at offset: Int, into buffer: inout [UInt8]) -> Int {
        var total = 0
        while total < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + total, raw.count - total, off_t(offset + total))
            }
            if count < 0, errno == EINTR { continue }
            if count < 0 { return -1 }
            if count == 0 { break }
            total += count
        }
        return total
    }
}

private func openReadOnly(_ path: String) -> Int32 {
    open(path, O_RDONLY | O_CLOEXEC)
}
