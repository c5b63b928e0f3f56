import Foundation
import IAPSimKit

/// Test helpers: fixtures, temporary folders, a fixed clock. Nothing touches the real config
/// directory: every state folder is a fresh temporary one.
enum Support {
    static func fixture(_ name: String) -> String {
        Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil)!.path
    }

    /// The repository's root, for the bundled catalog.
    static let repositoryRoot: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()

    /// `../shared/corpus` beside the repository, or `IAPSIM_CORPUS`; nil when absent.
    static var corpusDirectory: String? {
        let candidate =
            ProcessInfo.processInfo.environment["IAPSIM_CORPUS"]
            ?? URL(fileURLWithPath: repositoryRoot).deletingLastPathComponent().appendingPathComponent("shared/corpus")
            .path
        var isDirectory: ObjCBool = false
        return FileManager().fileExists(atPath: candidate, isDirectory: &isDirectory) && isDirectory.boolValue
            ? candidate : nil
    }

    static func temporaryDirectory() -> String {
        let path = FileManager().temporaryDirectory.appendingPathComponent("iapsim-test-" + UUID().uuidString).path
        try! FileManager().createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    /// 2026-01-15T12:00:00Z.
    static let fixedDate = Date(timeIntervalSince1970: 1_768_478_400)

    /// A context with only the given environment, a temporary working folder and a fixed clock.
    static func context(environment: [String: String] = [:], now: Date = fixedDate) -> Context {
        Context(environment: environment, currentDirectory: temporaryDirectory(), now: { now }, platform: .linux)
    }

    static func store(in directory: String = temporaryDirectory() + "/state") -> StateStore {
        StateStore(location: StateLocation(directory: directory, lockTimeout: 5))
    }

    /// A clock tests can move forward.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var date: Date
        init(_ date: Date = Support.fixedDate) { self.date = date }
        var now: Date { lock.withLock { date } }
        func advance(days: Double) { lock.withLock { date += days * 86_400 } }
    }

    static func validCatalog() throws -> Catalog {
        try Catalog.load(CatalogSource(storeKitPath: fixture("valid.storekit"), productIDsPath: fixture("ids.plist")))
    }
}

extension StoreSession {
    /// Quotes and buys `product` in one step, as a front end does after its prompt.
    func buy(_ product: Product, quantity: Int = 1, in catalog: Catalog, outcome: Outcome? = nil) throws
        -> PurchaseResult
    {
        try purchase(try quote(product, quantity: quantity, in: catalog), in: catalog, outcome: outcome).result
    }
}
