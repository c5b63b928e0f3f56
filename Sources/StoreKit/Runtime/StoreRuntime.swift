import Foundation
import IAPSimJSON
import IAPSimKit

/// The store behind the StoreKit API: iapsim's state folder and catalog, opened for each call
/// as `iapsim` opens them for each command, so the API and the command line are two hands on
/// one store.
///
/// This module is the app's side of the simulator, its "executable": it reads the process
/// environment once, the way `iapsim` does (`Context.live`), unless an `SKTestSession` names
/// the state folder and the `.storekit` file first (`configure(_:)`).
@_spi(IAPSim) public final class StoreRuntime: @unchecked Sendable {
    /// Closes the store for good, at the process's exit before its temporary state folder is
    /// removed: every look the runtime makes on its own (`Transaction.updates`, the payment
    /// queue's observers) stops, a call made from now on (a task still running as the process
    /// exits) fails with `Closed` rather than make the folder again, and a call under way
    /// (`withStore`) ends before this returns — waited for as long as a call may wait for the
    /// state's lock, and a second more.
    public func close() {
        let timeout = (lock.withLock { configured?.lockTimeout } ?? StateLocation.defaultLockTimeout) + 1
        TransactionWatcher.shared.stop()
        calls.close(waitingUpTo: timeout)
    }

    /// Runs `body` on the catalog in the buyer's storefront and a session over the state (as
    /// `iapsim`'s commands that act as the app open them), as one call under way: `close()`
    /// waits for it, so a task still writing as the process exits finishes before its state
    /// folder is removed. An app finishes its own transactions, so the catalog's default for
    /// `finish-transactions` is `manual` here (a state that sets it says otherwise).
    /// - Throws: `Closed` once the store is closed; what opening the store or `body` throws.
    public func withStore<Result>(_ body: (Catalog, StoreSession) throws -> Result) throws -> Result {
        try calls.run {
            let (catalog, session) = try open()
            return try body(catalog, session)
        }
    }

    /// The one store of the process, as a device has one App Store account.
    public static let shared = StoreRuntime()

    /// Where the store lives and what time it is.
    public struct Configuration: Sendable {
        public var stateDirectory: String
        /// The `.storekit` file: every product in it can be requested, as under Xcode.
        public var storeKitPath: String
        public var certsDirectory: String
        public var lockTimeout: Double
        /// The store's customer this app signs in as (`iapsim --account`).
        public var account: String
        public var now: @Sendable () -> Date

        public init(
            stateDirectory: String, storeKitPath: String, certsDirectory: String? = nil,
            lockTimeout: Double = StateLocation.defaultLockTimeout, account: String = StateLocation.defaultAccount,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.stateDirectory = stateDirectory
            self.account = account
            self.storeKitPath = storeKitPath
            self.certsDirectory = certsDirectory ?? stateDirectory + "/certs"
            self.lockTimeout = lockTimeout
            self.now = now
        }

        /// The configuration `iapsim` itself would use in this process's environment: the state
        /// folder of `IAPSIM_STATE_DIR` (else the user's), the customer of `IAPSIM_ACCOUNT`
        /// (else `default`), the catalog of `IAPSIM_CATALOG` (else `./catalog`).
        public static func live(environment: [String: String], currentDirectory: String) throws -> Configuration {
            let context = Context.live(
                environment: environment, currentDirectory: currentDirectory, executablePath: nil)
            let location = try StateLocation.resolve(stateDirectory: nil, context: context)
            let source = try CatalogSource.resolve(
                catalogDirectory: nil, storeKitFile: nil, productIDsFile: nil, context: context)
            return Configuration(
                stateDirectory: location.directory, storeKitPath: source.storeKitPath,
                certsDirectory: context.value(of: .certsDirectory).map(context.absolutePath),
                lockTimeout: location.lockTimeout, account: location.account)
        }
    }

    private let lock = NSLock()
    private var configured: Configuration?
    private let calls = CallGate()
    private var cachedSigner: (directory: String, signer: StoreSession.Signer)?
    private var cachedCatalog: (signature: String, catalog: Catalog)?

    init() {}

    /// Points the API at another store (an `SKTestSession`): the app starts afresh, with
    /// an empty payment queue, and its next listeners get what it left unfinished.
    public func configure(_ configuration: Configuration) {
        lock.withLock {
            configured = configuration
            cachedSigner = nil
        }
        SKPaymentQueue.default().relaunch()
        Transaction.relaunch()
        TransactionWatcher.shared.storeChanged()
    }

    /// Something in this process changed the state (an `SKTestSession` control): listeners
    /// hear of it now rather than at the next look.
    public func changed() {
        TransactionWatcher.shared.poke()
    }

    /// The configuration in force: the one set, else the live one.
    public func configuration() throws -> Configuration {
        if calls.isClosed { throw CallGate.Closed() }
        let set = lock.withLock { configured }
        if let set { return set }
        let live = try Configuration.live(
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath)
        return lock.withLock {
            if configured == nil { configured = live }
            return configured ?? live
        }
    }

    /// The state folder's store.
    public func store() throws -> StateStore {
        let configuration = try configuration()
        return StateStore(
            location: StateLocation(
                directory: configuration.stateDirectory, lockTimeout: configuration.lockTimeout,
                account: configuration.account))
    }

    /// The catalog and the session `withStore` runs its body on.
    private func open() throws -> (Catalog, StoreSession) {
        let configuration = try configuration()
        let store = StateStore(
            location: StateLocation(
                directory: configuration.stateDirectory, lockTimeout: configuration.lockTimeout,
                account: configuration.account))
        var catalog = try catalog(configuration.storeKitPath, store: store)
        if catalog.store.settings.overrides[.finishTransactions] == nil {
            try catalog.store.settings.overrides.set(.finishTransactions, text: "manual")
        }
        return (catalog, StoreSession(store: store, now: configuration.now, catalog: catalog))
    }

    /// The catalog in the state's storefront, as `StoreSession.open` loads it; kept while the
    /// `.storekit` file and the storefront stay the same (an app runs long; `iapsim` parses
    /// the file once per command).
    private func catalog(_ path: String, store: StateStore) throws -> Catalog {
        var storefront: IAPSimKit.Storefront?
        if store.exists, let code = try store.read().simulation.settings[.storefront] {
            storefront = IAPSimKit.Storefront.named(code)
        }
        let file = FileVersion(path)
        let signature: String? = file.exists ? "\(path)|\(file)|" + (storefront?.countryCode ?? "") : nil
        if let signature, let cached = lock.withLock({ cachedCatalog }), cached.signature == signature {
            return cached.catalog
        }
        let catalog = try Catalog.load(
            CatalogSource(storeKitPath: path, productIDsPath: nil), storefront: storefront)
        if let signature { lock.withLock { cachedCatalog = (signature, catalog) } }
        return catalog
    }

    /// The test signing identity of the state folder (made on first use, as `iapsim` makes it).
    public func signer() throws -> StoreSession.Signer {
        let configuration = try configuration()
        if let cached = lock.withLock({ cachedSigner }), cached.directory == configuration.certsDirectory {
            return cached.signer
        }
        let identity = try SigningIdentity.loadOrCreate(
            in: configuration.certsDirectory, lockTimeout: configuration.lockTimeout)
        let signer = StoreSession.Signer(identity: identity, reloading: true)
        lock.withLock { cachedSigner = (configuration.certsDirectory, signer) }
        return signer
    }
}
