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
