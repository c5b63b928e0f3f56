/// A parsed command line: the options every command shares, and the command with its own.
struct Invocation: Equatable, Sendable {
    var options: GlobalOptions
    var command: Command
}

/// Options that apply to every command.
struct GlobalOptions: Equatable, Sendable {
    var catalogDirectory: String?
    var storeKitFile: String?
    var productIDsFile: String?
    var stateDirectory: String?
    var locale: String?
    var storefront: String?
    var json = false
    var quiet = false
    var noColor = false
}

/// What to do.
enum Command: Equatable, Sendable {
    case listProducts
    case check
    case buy(productID: String, quantity: Int, assumeYes: Bool, outcome: BuyOutcome?)
    case restore
    case status
    case transactions(productID: String?, state: TransactionFilter?)
    case approve(id: UInt64)
    case decline(id: UInt64)
    case resolve(id: UInt64)
    case finish(id: UInt64)
    case refund(id: UInt64, reason: String)
    case cancelSubscription(productID: String, undo: Bool)
    case expire(productID: String)
    case renew(productID: String)
    case clock(ClockAction)
    case settings(SettingsAction)
    case reset(localOnly: Bool, assumeYes: Bool)
    case completion(shell: String)
    case help(topic: String?)
    case version
}

/// `buy --outcome`: how one purchase ends, whatever the settings say.
enum BuyOutcome: Equatable, Sendable {
    case success, cancel, askToBuy, interrupted
    /// `fail` alone fails with `SKError.unknown`; `fail=NAME` with that error.
    case fail(errorName: String?)
}

/// `transactions --state`.
enum TransactionFilter: String, CaseIterable, Sendable {
    case purchased, pending, unfinished, expired, upgraded, revoked
}

enum ClockAction: Equatable, Sendable {
    case show
    case advance(duration: String)
    case set(date: String)
    case freeze, run, reset
}

enum SettingsAction: Equatable, Sendable {
    case show
    case set(key: String, value: String)
    case reset(key: String?)
}
