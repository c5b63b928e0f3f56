/// Every command, in the order help lists them. Adding a command is one file and one line in
/// `commands`.
struct Registry {
    static let commands: [any CLICommand.Type] = [
        ListProducts.self, Check.self, Buy.self, RedeemOfferCode.self, OfferSignature.self, Restore.self,
        Status.self, Transactions.self, Approve.self, Decline.self, Resolve.self, Finish.self, Refund.self,
        RequestRefund.self, Family.self, CancelSubscription.self, Expire.self, Renew.self, PriceIncrease.self,
        Clock.self, Settings.self, Accounts.self, Reset.self, JWS.self, Certs.self, Receipt.self, Notifications.self,
        Listen.self, Trigger.self, NotifyTest.self, Serve.self, Token.self, ServerError.self, Ui.self, Completion.self,
        Help.self,
    ]

    /// iapsim's own commands.
    static let standard = Registry(commands: commands)

    /// The commands this registry knows.
    let commands: [any CLICommand.Type]

    /// The specs of the commands help shows.
    var visible: [CommandSpec] { commands.map { $0.spec }.filter { !$0.hidden } }

    /// The command `word` names, by name or alias.
    func command(named word: String) -> (any CLICommand.Type)? {
        commands.first { $0.spec.isNamed(word) }
    }

    /// Every command name and alias, for suggestions and completion.
    var words: [String] { visible.flatMap { [$0.name] + $0.aliases } }

    /// Every option any command takes, once by name, the global ones first.
    var allOptions: [OptionSpec] {
        var seen = Set<String>()
        return (GlobalOptions.specs + commands.flatMap { $0.spec.options }).filter { seen.insert($0.name).inserted }
    }

    func anyOption(named name: String) -> OptionSpec? { allOptions.first { $0.name == name } }

    func anyOption(short letter: Character) -> OptionSpec? { allOptions.first { $0.short == letter } }
}

extension Registry {
    static var visible: [CommandSpec] { standard.visible }
    static var words: [String] { standard.words }
    static var allOptions: [OptionSpec] { standard.allOptions }
    static func command(named word: String) -> (any CLICommand.Type)? { standard.command(named: word) }
}
