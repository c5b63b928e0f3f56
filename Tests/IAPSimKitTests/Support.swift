import Foundation
import IAPSimKit
import Testing

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

    /// A new folder inside one parent per test process, which is removed when the process exits.
    static func temporaryDirectory() -> String {
        let path = temporaryParent + "/" + UUID().uuidString
        try! FileManager().createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static let temporaryParent: String = {
        let path = FileManager().temporaryDirectory.appendingPathComponent("iapsim-test-" + UUID().uuidString).path
        try! FileManager().createDirectory(atPath: path, withIntermediateDirectories: true)
        TemporaryParent.path = path
        atexit { TemporaryParent.remove() }
        return path
    }()

    /// For the `atexit` handler, which cannot capture: set once, before the handler is registered.
    private enum TemporaryParent {
        nonisolated(unsafe) static var path = ""
        static func remove() { try? FileManager().removeItem(atPath: path) }
    }

    /// SplitMix64, seeded from `IAPSIM_TEST_SEED` or at random. The seed is printed, so a
    /// failing randomised test can be replayed.
    struct SeededRandom: RandomNumberGenerator {
        let seed: UInt64
        private var state: UInt64

        init(label: String) {
            seed =
                ProcessInfo.processInfo.environment["IAPSIM_TEST_SEED"].flatMap { UInt64($0) }
                ?? UInt64.random(in: 0...UInt64.max)
            state = seed
            print("\(label): seed \(seed) (IAPSIM_TEST_SEED=\(seed) replays it)")
        }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
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
        func advance(seconds: TimeInterval) { lock.withLock { date += seconds } }
    }

    /// What a session reports through `StoreSession.events`, in order.
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [StoreEvent] = []
        func record(_ event: StoreEvent) { lock.withLock { events.append(event) } }
        var all: [StoreEvent] { lock.withLock { events } }
    }

    static func validCatalog() throws -> Catalog {
        try Catalog.load(CatalogSource(storeKitPath: fixture("valid.storekit"), productIDsPath: fixture("ids.plist")))
    }
}

extension StoreSession {
    /// Quotes and buys `product` in one step, as a front end does after its prompt.
    func buy(_ product: Product, quantity: PurchaseQuantity = 1, in catalog: Catalog, outcome: Outcome? = nil) throws
        -> PurchaseResult
    {
        try purchase(try quote(product, quantity: quantity, in: catalog), in: catalog, outcome: outcome).result
    }
}
