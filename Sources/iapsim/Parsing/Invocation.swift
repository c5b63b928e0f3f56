import Foundation
import IAPSimHTTP
import IAPSimKit

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
    /// `--certs DIR`: the test certificates to sign with.
    var certsDirectory: String?
    /// `--environment`: signed data's environment, over the `environment` setting.
    var environment: AppStoreEnvironment?
    var json = false
    var quiet = false
    var noColor = false
}

/// What to do.
enum Command: Equatable, Sendable {
    case listProducts
    case check
    /// `--offer`, `--app-account-token` (lowercased) and `--as-family-member`.
    case buy(
        productID: String, quantity: Int, assumeYes: Bool, outcome: StoreSession.Outcome?, offer: OfferRequest? = nil,
        appAccountToken: String? = nil, asFamilyMember: Bool = false, monthlyBilling: Bool = false)
    /// `redeem-offer-code`: the offer code redemption sheet.
    case redeemOfferCode(productID: String, codeID: String, assumeYes: Bool)
    /// `offer-signature`: a promotional offer's signature, as a developer's server makes it.
    case offerSignature(productID: String, offerID: String, nonce: UUID?, timestamp: Int64?, appAccountToken: String?)
    case restore
    case status(withJWS: Bool)
    case transactions(productID: String?, filter: HistoryFilter?, withJWS: Bool)
    /// `transactions delete <id>`.
    case deleteTransaction(id: UInt64)
    case approve(id: UInt64)
    case decline(id: UInt64)
    case resolve(id: UInt64)
    case finish(id: UInt64)
    case refund(id: UInt64, reason: Transaction.RevocationReason)
    /// `refund <id> --decline`: the App Store declines the customer's refund request.
    case declineRefund(id: UInt64)
    /// `refund <id> --reverse`: the App Store reverses a refund it granted.
    case reverseRefund(id: UInt64)
    /// `request-refund <id>`: `Transaction.beginRefundRequest(in:)`.
    case requestRefund(id: UInt64, reason: RefundRequest.Reason?)
    /// `buy <id> --outside-app`: `SKTestSession.buyProduct(identifier:)`.
    case buyOutsideApp(productID: String, quantity: Int)
    case priceIncrease(PriceIncreaseAction)
    /// `family revoke <id>`: the organiser stops sharing.
    case familyRevoke(id: UInt64)
    case cancelSubscription(productID: String, undo: Bool)
    case expire(productID: String)
    case renew(productID: String)
    case clock(ClockAction)
    case settings(SettingsAction)
    case reset(ResetScope, assumeYes: Bool)
    case jws(JWSAction)
    case notifications(NotificationsAction)
    case listen(ListenRequest)
    /// `trigger TYPE[/SUBTYPE]`; nil name for `trigger --list`.
    case trigger(name: String?, productID: String?)
    case notifyTest
    case serve(ServeRequest)
    case certs(CertsAction)
    case completion(Shell)
    /// The product identifiers of the catalog, one a line, for the completion scripts (not
    /// listed in help).
    case completionProducts
    case help(HelpTopic?)
    case version
}

/// The shells `iapsim completion` writes scripts for.
enum Shell: String, CaseIterable, Sendable {
    case bash, zsh, fish
}

/// What `iapsim help` can explain.
enum HelpTopic: Equatable, Sendable {
    case command(CommandName)
    case exitCodes, environment, errors, settingKeys
    /// The whole help as a roff man page, for `make man` (not listed in help).
    case manpage

    /// The topics other than commands, by the word that names them.
    static let named: [(word: String, topic: HelpTopic)] = [
        ("exit-codes", .exitCodes), ("environment", .environment), ("errors", .errors),
        ("settings-keys", .settingKeys),
    ]
}

enum ClockAction: Equatable, Sendable {
    case show
    /// Forward by a duration on the Gregorian calendar in UTC.
    case advance(DateComponents)
    case set(Date)
    case freeze, run, reset
}

/// `iapsim price-increase …`.
enum PriceIncreaseAction: Equatable, Sendable {
    /// A new renewal price for the product's subscribers, with or without their consent.
    case announce(productID: String, newPrice: Decimal, requiresConsent: Bool)
    case consent(productID: String)
    case decline(productID: String)
}

/// `iapsim jws …`: signed data, as the App Store signs it.
enum JWSAction: Equatable, Sendable {
    case transaction(UInt64)
    /// A subscription's renewal info, by product identifier or original transaction id.
    case renewal(String)
    case appTransaction
    /// Decode and check a JWS; nil reads it from standard input.
    case decode(String?)
}

/// `iapsim notifications …`.
enum NotificationsAction: Equatable, Sendable {
    case list(NotificationFilter)
    case show(uuid: String)
}

/// `iapsim listen`: where and how to deliver.
struct ListenRequest: Equatable, Sendable {
    var endpoint: HTTPEndpoint
    /// Deliver what is due, then exit.
    var drain: Bool
    var kinds: Set<ServerNotification.Kind>?
    var timeout: Double
    var headers: [HTTPHeader]
}

/// `iapsim serve`: where to listen and how to check tokens.
struct ServeRequest: Equatable, Sendable {
    var host: String
    var port: UInt16
    var portFile: String?
    var keyFile: String?
    var keyID: String?
    var issuerID: String?
}

/// `--header 'Name: value'`.
struct HTTPHeader: Equatable, Sendable {
    var name: String
    var value: String

    init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        name = text[..<colon].trimmingCharacters(in: .whitespaces)
        value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let token = name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0 != ":" && $0.value < 0x7F }
        guard !name.isEmpty, token, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
    }
}

/// `iapsim certs …`: the test certificates.
enum CertsAction: Equatable, Sendable {
    case show
    case export(directory: String)
    case rotate
}

/// What `iapsim reset` resets.
enum ResetScope: String, Equatable, Sendable {
    /// `--local`: the app's record, as a reinstall forgets it.
    case local
    /// `--transactions`: `SKTestSession.clearTransactions()`; the session's settings and clock stay.
    case transactions
    /// `--settings`: `SKTestSession.resetToDefaultState()`; the transactions stay.
    case settings
    /// `--all`, and a bare `reset`: everything, the purchases file erased.
    case all
}

enum SettingsAction: Equatable, Sendable {
    case show
    case set(SettingKey, value: String)
    case reset(SettingKey?)
}
