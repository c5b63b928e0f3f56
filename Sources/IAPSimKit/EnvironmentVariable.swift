/// Every environment variable iapsim reads, with what it does: the one table that the code,
/// the help page, the man page and the tests go through. An empty value counts as unset.
public enum EnvironmentVariable: String, CaseIterable, Sendable {
    case catalog = "IAPSIM_CATALOG"
    case stateDirectory = "IAPSIM_STATE_DIR"
    case account = "IAPSIM_ACCOUNT"
    case locale = "IAPSIM_LOCALE"
    case lockTimeout = "IAPSIM_LOCK_TIMEOUT"
    case certsDirectory = "IAPSIM_CERTS_DIR"
    case libfaketime = "IAPSIM_LIBFAKETIME"
    case xdgConfigHome = "XDG_CONFIG_HOME"
    case home = "HOME"
    case noColor = "NO_COLOR"
    case columns = "COLUMNS"
    case term = "TERM"

    public var name: String { rawValue }

    /// Variables read that are no settings of iapsim's: under `clock exec`, an iapsim the
    /// program starts finds libfaketime's (`Faketime.environmentLeaving`) and runs itself again
    /// without it, to read the real clock.
    public static let libfaketimeMarkers = ["FAKETIME_TIMESTAMP_FILE", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES"]

    /// What it does, for `iapsim help environment`.
    public var summary: String {
        switch self {
        case .catalog: "Catalog folder, when --catalog is not given."
        case .stateDirectory: "State folder, when --state-dir is not given."
        case .account: "The customer commands act for, when --account is not given (default: default)."
        case .locale:
            "Price and text locale, when --locale is not given (de_DE, de-DE, de_DE.UTF-8 and de_DE@euro are all accepted)."
        case .lockTimeout:
            "Seconds to wait for another iapsim's lock (default \(Int(StateLocation.defaultLockTimeout)))."
        case .certsDirectory:
            "Test certificates to sign with, when --certs is not given (default: the state folder's certs)."
        case .libfaketime:
            "libfaketime for 'clock exec', when not in the usual places (/usr/lib/<arch>/faketime/libfaketime.so.1)."
        case .xdgConfigHome:
            "On Linux the state folder is $XDG_CONFIG_HOME/iapsim when it is an absolute path,"
        case .home: "else $HOME/.config/iapsim (macOS: ~/Library/Application Support/iapsim)."
        case .noColor: "Set and not empty: no colour or symbols (no-color.org)."
        case .columns: "Width that tables fit, else the terminal's."
        case .term: "\"dumb\": no colour."
        }
    }
}

extension Context {
    /// The value of `variable`, treating an empty value as unset.
    public func value(of variable: EnvironmentVariable) -> String? {
        self.variable(variable.name)
    }
}
