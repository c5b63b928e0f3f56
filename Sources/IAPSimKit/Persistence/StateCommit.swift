import IAPSimJSON

/// A change to the state folder written as one roll-forward intent, so that a crash at any
/// moment leaves the change done whole or not at all, whatever set of files it touches — the
/// app's and one customer's together.
///
/// There is one intent for the whole store (`purchases.json.next` at the top of the state
/// folder), as there is one lock: one change at a time, whichever customer it is for, and the
/// first command under the lock finishes or undoes it before any customer's state is read. The
/// intent is the customer's new snapshot itself, whose marks say how far each journal goes,
/// with one more member, `commit`: which snapshot it replaces (relative to the state folder),
/// the app's new `store.json` when the change alters it, and what the change does to each
/// other file (appends, each with its offsets and checksum, and removals). Readers of the
/// snapshot ignore the member, so the intent is renamed over the snapshot as it is. It is
/// written atomically (temp file, fsync, rename) before any other file is touched. The first
/// step under the lock after a crash (`StateStore.recoverCommit`) finds it and rolls it forward
/// (every append is there, byte for byte: the removals are done, `store.json` is written and
/// the intent is renamed over the snapshot) or back (the journals are cut back to where they
/// were and the intent is removed; `store.json` is only written once the roll forward is sure).
struct StateCommit: Equatable {
    /// What the change does to one file of the folder, other than the snapshot and
    /// `store.json`. Paths are relative to the state folder.
    enum Effect: Equatable {
        /// The file grows from `from` bytes to `to`; FNV-1a of the new bytes is `checksum`.
        case append(file: String, from: UInt64, to: UInt64, checksum: UInt64)
        /// The file is removed (a reset); a symlink there is followed. Once the intent exists
        /// it is always rolled forward.
        case remove(file: String)
    }

    var effects: [Effect]
    /// The snapshot the intent replaces, relative to the state folder (`purchases.json` for the
    /// customer `default`, `accounts/NAME/purchases.json` for another); nil when the change
    /// writes none (an erase, whose removals name every snapshot).
    var snapshot: String?
    /// The app's new `store.json` (`AppState`), when the change alters it.
    var store: JSONValue?

    /// 2 names the snapshot and may carry `store.json`; 1 (before customers) always meant the
    /// top-level `purchases.json`, and is still read.
    static let format = 2
    /// The member of the intent that holds the commit.
    static let member = "commit"

    /// The intent beside a snapshot at `path`.
    static func path(of snapshot: String) -> String { snapshot + ".next" }

    init(effects: [Effect], snapshot: String?, store: JSONValue? = nil) {
        self.effects = effects
        self.snapshot = snapshot
        self.store = store
    }

    /// The intent file's bytes: `snapshot`'s members (an object), then the commit.
    func intent(_ snapshot: JSONValue?) -> [UInt8] {
        var members: [(String, JSONValue)] = []
        if case .object(let snapshotMembers) = snapshot { members = snapshotMembers }
        members.append((Self.member, json))
        var bytes: [UInt8] = []
        JSONValue.object(members).write(to: &bytes, indent: 0)
        bytes.append(0x0A)
        return bytes
    }

    private var json: JSONValue {
        var effects: [JSONValue] = []
        for effect in self.effects {
            switch effect {
            case .append(let file, let from, let to, let checksum):
                effects.append(
                    .object([
                        ("append", .string(file)), ("from", .int(from)), ("to", .int(to)),
                        ("checksum", .int(checksum)),
                    ]))
            case .remove(let file):
                effects.append(.object([("remove", .string(file))]))
            }
        }
        var members: [(String, JSONValue)] = [
            ("format", .int(Self.format)), ("effects", .array(effects)),
            ("snapshot", snapshot.map(JSONValue.string) ?? .null),
        ]
        if let store { members.append(("store", store)) }
        return .object(members)
    }

    /// Reads the commit of an intent file.
    /// - Throws: `Failure` with what is wrong: a torn or foreign file, which cannot be rolled
    ///   forward.
    init(intent bytes: [UInt8]) throws(Reader.Failure) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw Reader.Failure(message: "not JSON: \(error.message)")
        }
        let commit = try Reader(json, at: "").required(Self.member)
        let format = try commit.required("format").int()
        guard format == 1 || format == Self.format else {
            throw Reader.Failure(message: "commit.format: not format 1 or \(Self.format)")
        }
        effects = try commit.required("effects").array { item throws(Reader.Failure) in
            if let file = try item.optional("remove") {
                return .remove(file: try Self.relative(try file.string()))
            }
            return .append(
                file: try Self.relative(try item.required("append").string()), from: try item.required("from").uint64(),
                to: try item.required("to").uint64(), checksum: try item.required("checksum").uint64())
        }
        if format == 1 {
            // Before customers: the snapshot at the top of the folder, written or removed.
            if try commit.required("snapshot").bool() {
                snapshot = StateLocation.fileName
            } else {
                snapshot = nil
                effects.append(.remove(file: StateLocation.fileName))
            }
            store = nil
            return
        }
        snapshot = try commit.optional("snapshot").map { value throws(Reader.Failure) in
            try Self.relative(try value.string())
        }
        store = try commit.optional("store")?.value
    }

    /// A file name inside the state folder: relative, with no `..` step.
    static func relative(_ file: String) throws(Reader.Failure) -> String {
        guard !file.isEmpty, !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else {
            throw Reader.Failure(message: "\(file): not a file of the state folder")
        }
        return file
    }
}
