import Foundation
import Testing

#if canImport(IAPSimStoreKit)
    import IAPSimStoreKit
    import IAPSimStoreKitTest
#else
    import StoreKit
    import StoreKitTest
#endif

/// The StoreKit API's suites. The store is the process's one, as a device has one account, so
/// they run one test at a time.
@Suite(.serialized) struct StoreKitAPITests {}

/// The repository's bundled `.storekit` file.
let bundledStoreKitFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("catalog/Products.storekit")

/// A session on the bundled catalog with no transactions and the file's settings, as Apple's
/// StoreKitTest examples begin.
func freshSession() throws -> SKTestSession {
    let session = try SKTestSession(contentsOf: bundledStoreKitFile)
    session.resetToDefaultState()
    session.disableDialogs = true
    session.clearTransactions()
    return session
}

/// Waits until `condition` holds, up to `seconds`, sleeping between looks.
func eventually(within seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return condition()
}

/// Collects what an observer is told, under a lock.
final class Recorder<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Value] = []
    func append(_ value: Value) { lock.withLock { storage.append(value) } }
    func append(contentsOf values: [Value]) { lock.withLock { storage += values } }
    var values: [Value] { lock.withLock { storage } }
}
