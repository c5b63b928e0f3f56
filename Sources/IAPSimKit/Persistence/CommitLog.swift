import IAPSimJSON

/// A change as one record of the commit log (`purchases.json.log`, beside the intent): every
/// byte the change writes — the lines it appends to each journal, the customer's new snapshot,
/// the app's new `store.json` — so that the record alone, once fsynced, is the change. Its
/// files are then written without fsync; whatever of them a restart loses, the log writes
/// again (`StateStore.replayLogIfRestarted`), until a checkpoint has synced them and emptied
/// the log. One fsync commits a purchase where an intent and its files took six.
///
/// A record is one line of compact JSON: the appends (file, offset, bytes), then the snapshot
/// (file, bytes) and `store.json`'s bytes when the change writes them. The bytes are strings,
/// since everything iapsim writes is UTF-8 JSON, so they come back byte for byte.
struct CommitRecord: Equatable {
    struct Append: Equatable {
        /// Relative to the state folder.
        var file: String
        var from: UInt64
        var bytes: [UInt8]
    }

    struct Snapshot: Equatable {
        /// Relative to the state folder (`purchases.json`, `accounts/NAME/purchases.json`).
        var file: String
        var bytes: [UInt8]
    }

    var appends: [Append]
    var snapshot: Snapshot?
    /// `store.json`'s new bytes.
    var store: [UInt8]?

    static let format = 1

    /// The record as a line of the log, newline included: written byte by byte, as the
    /// bytes it carries are most of it (a general JSON value of them cost a tenth of a purchase).
    func line() -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(
            256 + appends.reduce(0) { $0 + $1.bytes.count } + (snapshot?.bytes.count ?? 0) + (store?.count ?? 0))
        line += Array(#"{"record":\#(Self.format),"appends":["#.utf8)
        for (index, append) in appends.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line += Array(#"{"file":"#.utf8)
            Self.quote(Array(append.file.utf8), into: &line)
            line += Array(#","from":\#(append.from),"bytes":"#.utf8)
            Self.quote(append.bytes, into: &line)
            line.append(UInt8(ascii: "}"))
        }
        line.append(UInt8(ascii: "]"))
        if let snapshot {
            line += Array(#","snapshot":{"file":"#.utf8)
            Self.quote(Array(snapshot.file.utf8), into: &line)
            line += Array(#","bytes":"#.utf8)
            Self.quote(snapshot.bytes, into: &line)
            line.append(UInt8(ascii: "}"))
        }
        if let store {
            line += Array(#","store":"#.utf8)
            Self.quote(store, into: &line)
        }
        line += [UInt8(ascii: "}"), 0x0A]
        return line
    }

    /// UTF-8 `bytes` as a JSON string: quotes, a backslash before `"` and `\\`, control
    /// characters escaped; every other byte as it is.
    static func quote(_ bytes: [UInt8], into line: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        line.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                line.append(UInt8(ascii: "\\"))
                line.append(byte)
            case 0x0A:
                line.append(UInt8(ascii: "\\"))
                line.append(UInt8(ascii: "n"))
            case 0x00..<0x20:
                line += Array(#"\u00"#.utf8)
                line.append(hex[Int(byte >> 4)])
                line.append(hex[Int(byte & 0x0F)])
            default: line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    init(appends: [Append], snapshot: Snapshot?, store: [UInt8]?) {
        self.appends = appends
        self.snapshot = snapshot
        self.store = store
    }

    /// Reads a line of the log (with or without its newline).
    /// - Throws: `Failure` saying what is wrong: a torn or foreign line.
    init(line: ArraySlice<UInt8>) throws(Reader.Failure) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(line))
        } catch {
            throw Reader.Failure(message: "not JSON: \(error.message)")
        }
        let reader = try Reader(json, at: "")
        guard try reader.required("record").int() == Self.format else {
            throw Reader.Failure(message: "record: not format \(Self.format)")
        }
        appends = try reader.required("appends").array { item throws(Reader.Failure) in
            Append(
                file: try StateCommit.relative(try item.required("file").string()),
                from: try item.required("from").uint64(), bytes: Array(try item.required("bytes").string().utf8))
        }
        snapshot = try reader.optional("snapshot").map { item throws(Reader.Failure) in
            Snapshot(
                file: try StateCommit.relative(try item.required("file").string()),
                bytes: Array(try item.required("bytes").string().utf8))
        }
        store = try reader.optional("store").map { item throws(Reader.Failure) in Array(try item.string().utf8) }
    }

    /// The record as the intent it replaces, to check it names only what a change writes
    /// (`StateCommit.validate`).
    var commit: StateCommit {
        StateCommit(
            effects: appends.map { append in
                .append(
                    file: append.file, from: append.from, to: append.from + UInt64(append.bytes.count),
                    checksum: append.bytes.withUnsafeBufferPointer { StateStore.checksum($0) })
            }, snapshot: snapshot?.file)
    }

    /// Every file the record writes, relative to the state folder.
    var files: [String] {
        appends.map(\.file) + (snapshot.map { [$0.file] } ?? [])
            + (store == nil ? [] : [StateLocation.appStateFileName])
    }
}

/// The intent of a change committed through the log: where its record is (`from` up to `to`,
/// FNV-1a `checksum`). Written (temp file, rename, no fsync) before the record is appended and
/// removed once its files are written, it tells a reader that a change is in flight, as an
/// intent does, and the next command whether the record it names was committed: whole in
/// the log, it is written again; not, the log is cut back to `from`.
struct CommitMarker: Equatable {
    var from: UInt64
    var to: UInt64
    var checksum: UInt64

    /// The `commit.format` of a marker; 1 and 2 are intents (`StateCommit`).
    static let format = 3

    func bytes() -> [UInt8] {
        var bytes: [UInt8] = []
        JSONValue.object([
            (
                StateCommit.member,
                .object([
                    ("format", .int(Self.format)), ("log", .string(CommitLog.fileName)), ("from", .int(from)),
                    ("to", .int(to)), ("checksum", .int(checksum)),
                ])
            )
        ]).write(to: &bytes, indent: nil)
        bytes.append(0x0A)
        return bytes
    }

    init(from: UInt64, to: UInt64, checksum: UInt64) {
        self.from = from
        self.to = to
        self.checksum = checksum
    }

    /// The marker in an intent file's bytes; nil when they are not a marker (an intent, or
    /// not JSON at all).
    init?(intent bytes: [UInt8]) {
        guard let json = try? JSONValue.parse(bytes), let reader = try? Reader(json, at: ""),
            let commit = try? reader.required(StateCommit.member),
            (try? commit.required("format").int()) == Self.format
        else { return nil }
        guard let from = try? commit.required("from").uint64(), let to = try? commit.required("to").uint64(),
            let checksum = try? commit.required("checksum").uint64(), from >= UInt64(CommitLog.headerLength),
            from < to
        else { return nil }
        self.init(from: from, to: to, checksum: checksum)
    }
}

/// The commit log's file: a header line of fixed length naming the boot it was begun in,
/// then records (`CommitRecord`), one per line.
enum CommitLog {
    /// Beside the intent, at the top of the state folder.
    static let fileName = StateLocation.fileName + ".log"
    /// Records past this many bytes are checkpointed: their files synced, the log emptied.
    static let checkpointSize: UInt64 = 256 * 1024
    static let headerLength = 64
    private static let prefix = Array(#"{"commitLog":1,"boot":""#.utf8)

    /// The header: which boot the records after it were written in (`SystemBoot`).
    static func header(boot: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var bytes = prefix
        for byte in boot.prefix(16) {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        bytes += Array(#""}"#.utf8)
        while bytes.count < headerLength - 1 { bytes.append(0x20) }
        bytes.append(0x0A)
        return bytes
    }

    /// The boot a header names; nil when `bytes` do not begin with a header.
    static func boot(ofHeader bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= headerLength, bytes.starts(with: prefix), bytes[headerLength - 1] == 0x0A else {
            return nil
        }
        var boot: [UInt8] = []
        var index = prefix.count
        for _ in 0..<16 {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            boot.append(high << 4 | low)
            index += 2
        }
        return header(boot: boot) == Array(bytes.prefix(headerLength)) ? boot : nil
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
