import IAPSimJSON

/// A change to the state folder written as one roll-forward intent, so that a crash at any
/// moment leaves the change done whole or not at all, whatever set of files it touches.
///
/// The intent file (`purchases.json.next`, beside the snapshot) is the new snapshot itself,
/// whose marks say how far each journal goes, with one more member, `commit`: what the change
/// does to each file other than the snapshot (appends, each with its offsets and checksum, and
/// removals). Readers of the snapshot ignore the member, so the intent is renamed over the
/// snapshot as it is. It is written atomically (temp file, fsync, rename) before any other file
/// is touched. The first step under the lock after a crash (`StateStore.recoverCommit`) finds
/// it and rolls it forward (every append is there, byte for byte: the removals are done and the
/// intent is renamed over the snapshot) or back (the journals are cut back to where they were
/// and the intent is removed).
struct StateCommit: Equatable {
    /// What the change does to one file of the folder, other than the snapshot. Paths are
    /// relative to the state folder.
    enum Effect: Equatable {
        /// The file grows from `from` bytes to `to`; FNV-1a of the new bytes is `checksum`.
        case append(file: String, from: UInt64, to: UInt64, checksum: UInt64)
        /// The file is removed (a reset). Once the intent exists it is always rolled forward.
        case remove(file: String)
    }

    var effects: [Effect]
    /// Whether the change writes a new snapshot (the intent's other members); false when it
    /// removes the snapshot (an erase).
    var hasSnapshot: Bool

    static let format = 1
    /// The member of the intent that holds the commit.
    static let member = "commit"

    /// The intent beside a snapshot at `path`.
    static func path(of snapshot: String) -> String { snapshot + ".next" }

    init(effects: [Effect], hasSnapshot: Bool) {
        self.effects = effects
        self.hasSnapshot = hasSnapshot
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
        return .object([("format", .int(Self.format)), ("effects", .array(effects)), ("snapshot", .bool(hasSnapshot))])
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
        guard try commit.required("format").int() == Self.format else {
            throw Reader.Failure(message: "commit.format: not format \(Self.format)")
        }
        effects = try commit.required("effects").array { item throws(Reader.Failure) in
            if let file = try item.optional("remove") {
                return .remove(file: try Self.relative(try file.string()))
            }
            return .append(
                file: try Self.relative(try item.required("append").string()), from: try item.required("from").uint64(),
                to: try item.required("to").uint64(), checksum: try item.required("checksum").uint64())
        }
        hasSnapshot = try commit.required("snapshot").bool()
    }

    /// A file name inside the state folder: relative, with no `..` step.
    private static func relative(_ file: String) throws(Reader.Failure) -> String {
        guard !file.isEmpty, !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else {
            throw Reader.Failure(message: "\(file): not a file of the state folder")
        }
        return file
    }
}
