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
    var json = false
}

/// What to do.
enum Command: Equatable, Sendable {
    case listProducts
    case buy(productID: String, quantity: Int, assumeYes: Bool)
    case restore
    case status
    case reset(localOnly: Bool, assumeYes: Bool)
    case help(topic: String?)
    case version
}
