/// Where the state lives, which customer a command acts for, and how long to wait for the lock.
///
/// Folder precedence: `--state-dir DIR` > `IAPSIM_STATE_DIR` > `$XDG_CONFIG_HOME/iapsim` (only
/// if absolute, per the XDG Base Directory spec) > `$HOME/.config/iapsim` on Linux, and
/// `~/Library/Application Support/iapsim` on macOS.
///
/// One state folder is one app on one App Store, with any number of customers. What is the
/// app's — the clock, the app's settings, the notification outbox, the lock — is at the top of
/// the folder (`store.json`, `notifications.jsonl`); what is a customer's — the snapshot, the
/// journal and its index — is in the customer's own folder: the top of the state folder for
/// the customer `default` (so a folder written before customers existed is `default`'s as it
/// is), `accounts/NAME/` for the others. A command for one customer reads nothing of another's.
public struct StateLocation: Sendable, Equatable {
    public static let fileName = "purchases.json"
    public static let defaultLockTimeout = 10.0
    /// The customer a command acts for when none is named.
    public static let defaultAccount = "default"

    /// The state folder: the app's.
    public var directory: String
    public var lockTimeout: Double
    /// The customer: `default`, or a name `AccountName.check` accepts.
    public var account: String

    /// The folder of the customer's own files.
    public var accountDirectory: String {
        account == Self.defaultAccount ? directory : directory + "/" + Self.accountsFolderName + "/" + account
    }
    public static let accountsFolderName = "accounts"
    /// The folder of the customers other than `default`.
    public var accountsDirectory: String { directory + "/" + Self.accountsFolderName }

    /// The customer's snapshot.
    public var statePath: String { accountDirectory + "/" + Self.fileName }
    /// The customer's append-only transaction journal beside the snapshot.
    public var journalPath: String { accountDirectory + "/" + Self.journalFileName }
    public static let journalFileName = "transactions.jsonl"
    /// The index beside the journal (`TransactionIndex`), rebuilt from it whenever it is missing or stale.
    public var indexPath: String { accountDirectory + "/" + Self.indexFileName }
    public static let indexFileName = "transactions.idx"
    /// The app's notifications journal: every customer's App Store Server Notification and
    /// delivery attempt.
    public var notificationsPath: String { directory + "/" + Self.notificationsFileName }
    public static let notificationsFileName = "notifications.jsonl"
    /// The app's own state: the clock, the app's settings, how far the notifications journal goes.
    public var appStatePath: String { directory + "/" + Self.appStateFileName }
    public static let appStateFileName = "store.json"
    /// The customers other than `default`, each with the number its identifiers start from.
    public var customersPath: String { directory + "/" + Self.customersFileName }
    public static let customersFileName = "customers.json"
    /// One lock for the whole app: the outbox and the clock are shared by every customer.
    public var lockPath: String { directory + "/" + Self.fileName + ".lock" }
    /// Held by the one process that delivers the notifications (`listen`), as long as it does.
    public var deliveryLockPath: String { notificationsPath + ".lock" }
    /// libfaketime's timestamp file, rewritten on every clock change (`Faketime`).
    public var clockFilePath: String { directory + "/" + Faketime.fileName }
    /// The server errors and delays armed for `iapsim serve` (`ServerFault`).
    public var serverFaultsPath: String { directory + "/" + ServerFault.fileName }

    public init(
        directory: String, lockTimeout: Double = StateLocation.defaultLockTimeout,
        account: String = StateLocation.defaultAccount
    ) {
        self.directory = directory
        self.lockTimeout = lockTimeout
        self.account = account
    }

    /// The same folder, for another customer.
    public func forAccount(_ name: String) -> StateLocation {
        var other = self
        other.account = name
        return other
    }

    /// - Parameter account: the customer named by `--account`; else `IAPSIM_ACCOUNT`; else `default`.
    /// - Throws: `StateError.noStateDirectory` when nothing names a folder,
    ///   `.invalidLockTimeout` for a bad `IAPSIM_LOCK_TIMEOUT`, `.invalidAccountName` for a
    ///   customer name that is not one.
    public static func resolve(stateDirectory: String?, account: String? = nil, context: Context)
        throws(StateError) -> StateLocation
    {
        var timeout = defaultLockTimeout
        if let text = context.value(of: .lockTimeout) {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
                throw .invalidLockTimeout(value: text)
            }
            timeout = seconds
        }
        let name = account ?? context.value(of: .account) ?? defaultAccount
        guard AccountName.isValid(name) else {
            throw .invalidAccountName(
                value: name, origin: account != nil ? "--account" : EnvironmentVariable.account.name)
        }
        // Names compare without case: `Default` would be a second folder for the name of the one
        // customer that has none.
        guard name == defaultAccount || name.lowercased() != defaultAccount else {
            throw .accountNameTaken(name: name, existing: defaultAccount)
        }
        if let explicit = stateDirectory ?? context.value(of: .stateDirectory) {
            return StateLocation(directory: context.absolutePath(explicit), lockTimeout: timeout, account: name)
        }
        switch context.platform {
        case .linux:
            if let xdg = context.value(of: .xdgConfigHome), xdg.hasPrefix("/") {
                return StateLocation(directory: xdg + "/iapsim", lockTimeout: timeout, account: name)
            }
            guard let home = context.value(of: .home) else { throw .noStateDirectory }
            return StateLocation(directory: home + "/.config/iapsim", lockTimeout: timeout, account: name)
        case .macOS:
            guard let home = context.value(of: .home) else { throw .noStateDirectory }
            return StateLocation(
                directory: home + "/Library/Application Support/iapsim", lockTimeout: timeout, account: name)
        }
    }
}

/// A customer's name: it names a folder, so it is kept to what every file system takes.
public enum AccountName {
    /// What a name may be, for error messages.
    public static let rule = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"

    /// Whether `name` is 1 to 64 ASCII letters, digits, `.`, `_` or `-`, starting with a
    /// letter or digit (so never `.`, `..` or a hidden file).
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard isAlphanumeric(bytes[0]) else { return false }
        return bytes.allSatisfy {
            isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }
}
