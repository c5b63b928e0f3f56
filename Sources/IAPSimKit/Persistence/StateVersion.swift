/// One version of a file, told without reading it (one `stat`): its size, device, inode,
/// modification time and the later of its modification and change times. Appending changes
/// the size, an atomic replacement the inode, an edit in place the times — the change time too,
/// which no tool sets back.
public struct FileVersion: Equatable, Sendable, CustomStringConvertible {
    let signature: SettledFileSignature

    /// The version of the file at `path` now.
    public init(_ path: String) {
        signature = SettledFileSignature.of(path)
    }

    /// Whether there is a file.
    public var exists: Bool { signature.signature != .absent }

    public var description: String {
        guard exists else { return "-" }
        let file = signature.signature
        return "\(file.device).\(file.inode).\(file.size).\(file.modifiedSeconds).\(file.modifiedNanoseconds)."
            + "\(signature.changed)"
    }
}

/// One version of a customer's state, told without reading it: the version of each file a
/// command writes for the customer — its snapshot and journal (`accounts/NAME/` for a customer
/// other than `default`) — and of the app's files any customer's command may write:
/// `store.json` (the clock, the app's settings, the outbox's count), the outbox, and
/// `customers.json` (a customer added from a shell). Every change rewrites a snapshot or
/// `store.json` or appends to a journal, so a change made from any process changes the
/// version. The page (`iapsim ui`) and StoreKit's `Transaction.updates` wait on it instead of
/// reading the state. It starts with the customer's name: two customers are two versions even
/// before either has a file.
public struct StateVersion: Equatable, Sendable {
    public let account: String
    let files: [FileVersion]

    /// The version of the state at `location` now: five `stat` calls, no reading.
    public init(_ location: StateLocation) {
        account = location.account
        files = [
            location.statePath, location.journalPath, location.appStatePath, location.notificationsPath,
            location.customersPath,
        ].map(FileVersion.init)
    }

    /// The version as text, for a client that hands it back (`GET /api/version?since=`).
    public var text: String { ([account] + files.map(\.description)).joined(separator: "-") }
}

/// One version of every file a read of a customer's state looks at, for a reader that keeps
/// what it made from that state between requests (`serve`'s answers, `AnswerKey`): the app's
/// `store.json` (the clock, the app's settings), customer list, outbox and armed server errors,
/// then the customer's snapshot and journal. An equal version later means the same bytes in
/// every one of them, because it is only taken when that can be told from a `stat`:
/// - every file there has settled (`SettledFileSignature.wasSettled`), so no later change can
///   leave the signature it had;
/// - no change is in flight (no commit intent), and no server error is armed (answering one
///   changes what the next request meets);
/// - `store.json` is there: a folder from before customers keeps the app's part in
///   `default`'s snapshot, which a customer's read also looks at.
///
/// Each file is looked at before anything is read from it, so a change made meanwhile leaves
/// the kept value under a version that never comes again, never the reverse.
struct SettledStateVersion: Hashable, Sendable {
    let files: [SettledFileSignature]

    /// The version of `store.json`, the first file looked at (always there).
    var appState: SettledFileSignature { files[0] }

    /// The version of `app`'s files, then of the files of the customer `customer` chooses
    /// (from the customer list, whose version is then already taken); nil when it cannot be
    /// told from a `stat` as above, or when `customer` throws.
    init?(app: StateStore, customer: () throws -> StateLocation) {
        let location = app.location
        let settled = app.cache.isSettled
        var files: [SettledFileSignature] = []
        files.reserveCapacity(6)
        for path in [location.appStatePath, location.customersPath, location.notificationsPath] {
            let file = SettledFileSignature.of(path)
            guard file.signature == .absent ? path != location.appStatePath : settled(file) else { return nil }
            files.append(file)
        }
        guard !FileSystem.entryExists(location.serverFaultsPath), !FileSystem.entryExists(app.commitPath),
            let chosen = try? customer()
        else { return nil }
        for path in [chosen.statePath, chosen.journalPath] {
            let file = SettledFileSignature.of(path)
            guard file.signature == .absent || settled(file) else { return nil }
            files.append(file)
        }
        self.files = files
    }
}
