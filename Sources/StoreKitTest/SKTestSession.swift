import Foundation

import enum IAPSimKit.AccountName
import struct IAPSimKit.Catalog
import struct IAPSimKit.Context
import enum IAPSimKit.EnvironmentVariable
import struct IAPSimKit.SessionSettings
import enum IAPSimKit.SettingKey
import struct IAPSimKit.SimulatedError
import enum IAPSimKit.SimulationError
import struct IAPSimKit.StateLocation
import struct IAPSimKit.StoreSession
import enum IAPSimKit.TimeRate

#if canImport(IAPSimStoreKit)
    @_spi(IAPSim) import IAPSimStoreKit
#else
    @_spi(IAPSim) import StoreKit
#endif

/// StoreKitTest's `SKTestSession`: a `.storekit` file and Xcode's controls over the store,
/// each control the library operation the matching `iapsim` command runs, on the same state
/// folder — `IAPSIM_STATE_DIR` when it is set (so a shell running `iapsim` shares it), else one
/// folder per test process under the temporary directory (`stateDirectory`).
open class SKTestSession: NSObject, @unchecked Sendable {
    /// The state folder this session's store lives in (an iapsim addition: pass it to
    /// `iapsim` as `IAPSIM_STATE_DIR` to act on the same store from a shell).
    public let stateDirectory: URL
    /// The `.storekit` file.
    public let configurationURL: URL

    /// Opens the `.storekit` file named `name` (without its extension), looked for in the
    /// bundles of the process (a SwiftPM test target's resources included), the catalog folder
    /// (`IAPSIM_CATALOG`, `./catalog`) and the current folder.
    /// - Throws: `SKTestError` `.fileNotFound` naming the places looked in.
    public convenience init(configurationFileNamed name: String) throws {
        let file = name.hasSuffix(".storekit") ? name : name + ".storekit"
        let candidates = Self.searchPaths().map { $0 + "/" + file }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw SKTestError(
                .fileNotFound, "no \(file) in " + Self.searchPaths().joined(separator: ", "))
        }
        try self.init(contentsOf: URL(fileURLWithPath: found))
    }

    /// Opens the `.storekit` file at `fileURL`.
    /// - Throws: `SKTestError` `.fileNotFound` or `.invalidFile` with iapsim's message.
    public init(contentsOf fileURL: URL) throws {
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            throw SKTestError(.fileNotFound, fileURL.path)
        }
        let environment = ProcessInfo.processInfo.environment
        let context = Context.live(
            environment: environment, currentDirectory: FileManager.default.currentDirectoryPath, executablePath: nil)
        // The customer `IAPSIM_ACCOUNT` names, as `iapsim` acts for it.
        let account = context.value(of: .account) ?? StateLocation.defaultAccount
        guard AccountName.isValid(account) else {
            throw SKTestError(.invalidAction, "IAPSIM_ACCOUNT: not a customer name: \(account)")
        }
        let directory: String
        if let named = context.value(of: .stateDirectory) {
            directory = context.absolutePath(named)
        } else {
            directory = NSTemporaryDirectory() + "/iapsim-SKTestSession-\(ProcessInfo.processInfo.processIdentifier)"
            ProcessStateFolder.removeAtExit(directory)
        }
        stateDirectory = URL(fileURLWithPath: directory)
        configurationURL = fileURL
        super.init()
        StoreRuntime.shared.configure(
            StoreRuntime.Configuration(
                stateDirectory: directory, storeKitPath: fileURL.path,
                certsDirectory: context.value(of: .certsDirectory).map(context.absolutePath), account: account))
        do {
            // Check the file now, as Apple's initialiser does, rather than at the first purchase.
            try StoreRuntime.shared.withStore { _, _ in }
        } catch {
            throw SKTestError(.invalidFile, error.localizedDescription)
        }
    }

    private static func searchPaths() -> [String] {
        var paths: [String] = []
        for bundle in [Bundle.main] + Bundle.allBundles {
            if let resources = bundle.resourcePath { paths.append(resources) }
        }
        // SwiftPM puts a target's resources beside the test binary, in NAME.resources (Linux)
        // or NAME.bundle (macOS).
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var folders = [executable.deletingLastPathComponent()]
        if executable.path.contains(".xctest/") {
            folders.append(
                URL(fileURLWithPath: String(executable.path[..<executable.path.range(of: ".xctest/")!.lowerBound]))
                    .deletingLastPathComponent())
        }
        for folder in folders {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for entry in entries.sorted() where entry.hasSuffix(".resources") || entry.hasSuffix(".bundle") {
                paths.append(folder.path + "/" + entry)
                paths.append(folder.path + "/" + entry + "/Contents/Resources")
            }
        }
        let environment = ProcessInfo.processInfo.environment
        if let catalog = environment[EnvironmentVariable.catalog.name], !catalog.isEmpty { paths.append(catalog) }
        let current = FileManager.default.currentDirectoryPath
        paths += [current + "/catalog", current]
        return paths
    }

    // MARK: The session's settings

    /// No dialogs are ever shown by the simulator; kept for code that sets it.
    open var disableDialogs: Bool = true

    /// `iapsim settings set ask-to-buy`.
    open var askToBuyEnabled: Bool {
        get { flag(.askToBuy) }
        set { set(.askToBuy, newValue ? "true" : "false") }
    }

    /// `iapsim settings set interrupted-purchases`.
    open var interruptedPurchasesEnabled: Bool {
        get { flag(.interruptedPurchases) }
        set { set(.interruptedPurchases, newValue ? "true" : "false") }
    }

    /// `iapsim settings set billing-retry`.
    open var shouldEnterBillingRetryOnRenewal: Bool {
        get { flag(.billingRetry) }
        set { set(.billingRetry, newValue ? "true" : "false") }
    }

    /// `iapsim settings set grace-period`.
    open var billingGracePeriodIsEnabled: Bool {
        get { flag(.gracePeriod) }
        set { set(.gracePeriod, newValue ? "true" : "false") }
    }

    /// The deprecated way to make purchases fail: `error.purchase` set to `failureError`.
    open var failTransactionsEnabled: Bool {
        get { ((try? settings())?.simulatedError(.purchaseError)) != nil }
        set { set(.purchaseError, newValue ? "SKError." + Self.name(of: failureError) : "none") }
    }

    /// The `SKError` code purchases fail with while `failTransactionsEnabled`.
    open var failureError: SKError.Code = .unknown {
        didSet { if failTransactionsEnabled { failTransactionsEnabled = true } }
    }

    /// `iapsim settings set time-rate`.
    open var timeRate: SKTestSession.TimeRate {
        get {
            (try? settings()[.timeRate]).flatMap(TimeRate.named) ?? .realTime
        }
        set { set(.timeRate, String(newValue.rawValue)) }
    }

    /// `iapsim settings set storefront` (an ISO 3166-1 alpha-3 code).
    open var storefront: String {
        get { (try? settings()[.storefront]) ?? "USA" }
        set { set(.storefront, newValue) }
    }

    /// `iapsim settings set locale`.
    open var locale: Locale {
        get { Locale(identifier: (try? settings()[.locale]) ?? "en_US") }
        set { set(.locale, newValue.identifier) }
    }

    /// `iapsim settings reset`: every setting back to the `.storekit` file's.
    open func resetToDefaultState() {
        _ = try? withSession { try $0.resetSettings() }
        failureError = .unknown
        StoreRuntime.shared.changed()
    }

    // MARK: Transactions

    /// `iapsim transactions clear`: the account's history and the app's record, erased.
    open func clearTransactions() {
        _ = try? withSession { try $0.clearTransactions() }
        StoreRuntime.shared.changed()
    }

    /// Every transaction of the account (`iapsim transactions`).
    open func allTransactions() -> [SKTestTransaction] {
        let all = try? withSession { session -> [SKTestTransaction] in
            let history = try session.history()
            let entries = try history.entries()
            let chains = Dictionary(
                ((try? session.status().subscriptions) ?? []).map { ($0.originalID, $0) },
                uniquingKeysWith: { a, _ in a })
            return entries.map { SKTestTransaction($0, chain: chains[$0.transaction.originalID]) }
                + history.pending.map { SKTestTransaction(pending: $0) }
        }
        return all ?? []
    }

    /// `iapsim buy --outside-app`: a purchase made on another device.
    open func buyProduct(productIdentifier: String) throws {
        _ = try control { catalog, session in
            try session.purchaseOutsideApp(productIdentifier, in: catalog)
        }
    }

    /// `iapsim buy --outside-app`, returning the transaction made.
    @discardableResult
    open func buyProduct(identifier: String, options: Set<Product.PurchaseOption> = []) async throws -> Transaction {
        let result = try control { catalog, session in try session.purchaseOutsideApp(identifier, in: catalog) }
        guard let stored = result.transaction, let transaction = await Transaction.latest(for: stored.productID)
        else { throw SKTestError(.invalidAction, "the purchase of \(identifier) made no transaction") }
        return transaction.unsafePayloadValue
    }

    /// `iapsim approve ID`.
    open func approveAskToBuyTransaction(identifier: Int) throws {
        _ = try control { catalog, session in try session.approve(try Self.id(identifier), in: catalog) }
    }

    /// `iapsim decline ID`.
    open func declineAskToBuyTransaction(identifier: Int) throws {
        _ = try control { _, session in try session.decline(try Self.id(identifier)) }
    }

    /// `iapsim resolve ID`.
    open func resolveIssueForTransaction(identifier: Int) throws {
        _ = try control { catalog, session in try session.resolve(try Self.id(identifier), in: catalog) }
    }

    /// `iapsim refund ID`.
    open func refundTransaction(identifier: Int) throws {
        _ = try control { _, session in try session.refund(try Self.id(identifier), reason: .other) }
    }

    /// `iapsim transactions delete ID`.
    open func deleteTransaction(identifier: Int) throws {
        _ = try control { _, session in try session.deleteTransaction(try Self.id(identifier)) }
    }

    /// `iapsim expire PRODUCT`.
    open func expireSubscription(productIdentifier: String) throws {
        _ = try control { _, session in try session.expireSubscription(productIdentifier) }
    }

    /// `iapsim renew PRODUCT`.
    open func forceRenewalOfSubscription(productIdentifier: String) throws {
        _ = try control { _, session in try session.renewSubscription(productIdentifier) }
    }

    /// `iapsim cancel-subscription PRODUCT` (`disableAutoRenewForTransaction(identifier:)`).
    open func disableAutoRenewForTransaction(identifier: Int) throws {
        _ = try control { _, session in try session.cancelSubscription(try Self.productID(identifier, session)) }
    }

    /// `iapsim cancel-subscription PRODUCT --undo`: auto-renew back on.
    open func enableAutoRenewForTransaction(identifier: Int) throws {
        _ = try control { _, session in try session.resumeSubscription(try Self.productID(identifier, session)) }
    }

    /// `iapsim price-increase PRODUCT PRICE --consent-required`, at the price the `.storekit`
    /// file gives the product now: as in Xcode's "Testing a price increase", raise the price in
    /// the configuration file first, then ask the subscriber for consent.
    /// - Throws: `SKTestError` `.invalidAction` when the file's price is not above the price
    ///   the subscription renews at.
    open func requestPriceIncreaseConsentForTransaction(identifier: Int) throws {
        _ = try control { catalog, session in
            let productID = try Self.productID(identifier, session)
            guard let product = catalog.product(productID) else {
                throw SKTestError(.invalidProductIdentifier, "\(productID) is not in the configuration file")
            }
            do {
                return try session.increasePrice(productID, to: product.price, requiresConsent: true)
            } catch SimulationError.notAPriceIncrease(_, let price, let current) {
                throw SKTestError(
                    .invalidAction,
                    "\(productID): the configuration file's price \(price) is not above the renewal price \(current); "
                        + "raise it in the .storekit file first")
            }
        }
    }

    /// `iapsim price-increase consent PRODUCT`: the subscriber agrees.
    open func consentToPriceIncreaseForTransaction(identifier: Int) throws {
        _ = try control { _, session in try session.consentToPriceIncrease(try Self.productID(identifier, session)) }
    }

    /// `iapsim price-increase decline PRODUCT`: the subscriber declines; it expires at its
    /// period's end.
    open func declinePriceIncreaseForTransaction(identifier: Int) throws {
        _ = try control { _, session in try session.declinePriceIncrease(try Self.productID(identifier, session)) }
    }

    /// `iapsim clock advance`: moves the simulated clock on (an iapsim addition; Apple's
    /// sessions move time only through `timeRate`).
    open func advanceClock(by components: DateComponents) throws {
        _ = try control { _, session in try session.advanceClock(by: components) }
    }

    // MARK: Simulated errors

    /// `iapsim settings set error.API ERROR` (`none` for nil).
    open func setSimulatedError<API: FailableStoreKitAPI>(_ error: API.Failure?, forAPI api: API) async throws {
        let text = error.map { api._errorName($0) } ?? "none"
        guard let key = api._settingKey else {
            lock.withLock { sheetError = text == "none" ? nil : text }
            return
        }
        do {
            _ = try withSession { try $0.setSetting(key, to: text) }
            StoreRuntime.shared.changed()
        } catch {
            throw SKTestError(.invalidAction, error.localizedDescription)
        }
    }

    /// The error an API fails with now, if any.
    open func simulatedError<API: FailableStoreKitAPI>(forAPI api: API) async -> API.Failure? {
        guard let key = api._settingKey else {
            let text = lock.withLock { sheetError }
            return text.flatMap { api._failure(named: String($0.split(separator: ".").last ?? "")) }
        }
        guard let error = try? settings().simulatedError(key) else { return nil }
        return api._failure(named: error.name)
    }

    // MARK: Plumbing

    /// The Manage Subscriptions sheet's error: kept so `simulatedError(forAPI:)` answers what
    /// was set, though no sheet is shown on Linux.
    private var sheetError: String?
    private let lock = NSLock()

    private func withSession<Result>(_ body: (StoreSession) throws -> Result) throws -> Result {
        try StoreRuntime.shared.withStore { _, session in try body(session) }
    }
    private func settings() throws -> SessionSettings { try withSession { try $0.settings() } }
    private func flag(_ key: SettingKey) -> Bool { (try? settings()[key]) == "true" }

    private func set(_ key: SettingKey, _ value: String) {
        _ = try? withSession { try $0.setSetting(key, to: value) }
        StoreRuntime.shared.changed()
    }

    private func control<Result>(_ body: (Catalog, StoreSession) throws -> Result) throws -> Result {
        do {
            let result = try StoreRuntime.shared.withStore(body)
            StoreRuntime.shared.changed()
            return result
        } catch let error as SKTestError {
            throw error
        } catch {
            throw SKTestError(.invalidAction, error.localizedDescription)
        }
    }

    /// The product of the account's transaction `identifier`.
    private static func productID(_ identifier: Int, _ session: StoreSession) throws -> String {
        let id = try Self.id(identifier)
        guard let entry = try session.history().entries().first(where: { $0.transaction.id == id }) else {
            throw SimulationError.unknownTransaction(id: id)
        }
        return entry.transaction.productID
    }

    private static func id(_ identifier: Int) throws -> UInt64 {
        guard identifier > 0 else { throw SKTestError(.invalidAction, "no transaction \(identifier)") }
        return UInt64(identifier)
    }

    private static func name(of code: SKError.Code) -> String {
        SimulatedError.all.first { $0.domain == .skError && $0.code == code.rawValue }?.name ?? "unknown"
    }
}

/// The state folder a session made for its process in the temporary directory: removed when
/// the process exits, so test runs leave nothing behind. A folder `IAPSIM_STATE_DIR` names is
/// the user's and is kept.
enum ProcessStateFolder {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var path: String?

    static func removeAtExit(_ directory: String) {
        let first = lock.withLock { () -> Bool in
            defer { path = directory }
            return path == nil
        }
        if first { atexit { ProcessStateFolder.remove() } }
    }

    static func remove() {
        guard let path = lock.withLock({ path }) else { return }
        // The runtime looks at the state every 75 ms on a queue of its own, and a task may still
        // call StoreKit as the process exits: closed first, or a look made after the removal
        // would make the folder again.
        StoreRuntime.shared.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}
