/// Where the state lives and how long to wait for its lock.
///
/// Folder precedence: `--state-dir DIR` > `IAPSIM_STATE_DIR` > `$XDG_CONFIG_HOME/iapsim` (only
/// if absolute, per the XDG Base Directory spec) > `$HOME/.config/iapsim` on Linux, and
/// `~/Library/Application Support/iapsim` on macOS.
public struct StateLocation: Sendable, Equatable {
    public static let fileName = "purchases.json"
    public static let defaultLockTimeout = 10.0

    public var directory: String
    public var lockTimeout: Double

    public var statePath: String { directory + "/" + Self.fileName }
    /// The append-only transaction journal beside the snapshot.
    public var journalPath: String { directory + "/" + Self.journalFileName }
    public static let journalFileName = "transactions.jsonl"
    /// The index beside the journal (`TransactionIndex`), rebuilt from it whenever it is missing or stale.
    public var indexPath: String { directory + "/" + Self.indexFileName }
    public static let indexFileName = "transactions.idx"
    /// The notifications journal: every App Store Server Notification and delivery attempt.
    public var notificationsPath: String { directory + "/" + Self.notificationsFileName }
    public static let notificationsFileName = "notifications.jsonl"
    public var lockPath: String { directory + "/" + Self.fileName + ".lock" }
    /// Held by the one process that delivers the notifications (`listen`), as long as it does.
    public var deliveryLockPath: String { notificationsPath + ".lock" }
    /// libfaketime's timestamp file, rewritten on every clock change (`Faketime`).
    public var clockFilePath: String { directory + "/" + Faketime.fileName }
    /// The server errors and delays armed for `iapsim serve` (`ServerFault`).
    public var serverFaultsPath: String { directory + "/" + ServerFault.fileName }

    public init(directory: String, lockTimeout: Double = StateLocation.defaultLockTimeout) {
        self.directory = directory
        self.lockTimeout = lockTimeout
    }

    /// - Throws: `StateError.noStateDirectory` when nothing names a folder,
    ///   `.invalidLockTimeout` for a bad `IAPSIM_LOCK_TIMEOUT`.
    public static func resolve(stateDirectory: String?, context: Context) throws(StateError) -> StateLocation {
        var timeout = defaultLockTimeout
        if let text = context.value(of: .lockTimeout) {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
                throw .invalidLockTimeout(value: text)
            }
            timeout = seconds
        }
        if let explicit = stateDirectory ?? context.value(of: .stateDirectory) {
            return StateLocation(directory: context.absolutePath(explicit), lockTimeout: timeout)
        }
        switch context.platform {
        case .linux:
            if let xdg = context.value(of: .xdgConfigHome), xdg.hasPrefix("/") {
                return StateLocation(directory: xdg + "/iapsim", lockTimeout: timeout)
            }
            guard let home = context.value(of: .home) else { throw .noStateDirectory }
            return StateLocation(directory: home + "/.config/iapsim", lockTimeout: timeout)
        case .macOS:
            guard let home = context.value(of: .home) else { throw .noStateDirectory }
            return StateLocation(directory: home + "/Library/Application Support/iapsim", lockTimeout: timeout)
        }
    }
}
