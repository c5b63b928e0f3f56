import Foundation
import IAPSimKit
import IAPSimTestSupport

@testable import iapsim

/// Runs iapsim in-process with captured output, scripted answers, a fixed clock and a
/// temporary state folder; the bundled catalog unless told otherwise.
final class Harness: @unchecked Sendable {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    let stateDirectory: String
    var environment: [String: String]
    var answers: [String] = []
    var terminal = false
    var outputTerminal = false
    /// The real clock the run reads (fixed: 2026-01-15T12:00:00Z).
    var now = Date(timeIntervalSince1970: 1_768_478_400)
    private let lock = NSLock()
    private var stdout = ""
    private var stderr = ""

    init(environment: [String: String] = [:]) {
        stateDirectory = Self.temporaryPath("iapsim-cli-")
        self.environment = environment.merging(
            ["IAPSIM_STATE_DIR": stateDirectory, "IAPSIM_CATALOG": Self.repositoryRoot + "/catalog"]) { a, _ in a }
    }

    /// Gives the state's certificate set the fixture RSA receipt chain (`ReceiptChainFixture`),
    /// so a test that signs receipts or exports certificates does not wait for three RSA keys
    /// to be made in a debug build.
    func installReceiptChainFixture() throws {
        _ = try SigningIdentity.loadOrCreate(
            in: environment["IAPSIM_CERTS_DIR"] ?? stateDirectory + "/certs", lockTimeout: 5
        ).withReceiptChain(lockTimeout: 5, make: ReceiptChainFixture.make)
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func run(_ arguments: String...) -> Result { run(arguments) }

    func run(_ arguments: [String]) -> Result {
        lock.withLock {
            stdout = ""
            stderr = ""
        }
        let console = Console(
            writeOut: { text in self.lock.withLock { self.stdout += text } },
            writeError: { text in self.lock.withLock { self.stderr += text } },
            readLine: { self.lock.withLock { self.answers.isEmpty ? nil : self.answers.removeFirst() } },
            inputIsTerminal: terminal, outputIsTerminal: outputTerminal, errorIsTerminal: outputTerminal)
        let context = Context(
            environment: environment, currentDirectory: stateDirectory,
            now: { [now] in now },
            platform: .linux)
        let status = IAPSim.run(arguments: arguments, context: context, console: console)
        return lock.withLock { Result(status: status, stdout: stdout, stderr: stderr) }
    }

    func json(_ arguments: String...) throws -> [String: Any] {
        let result = run(arguments + ["--json"])
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    }

    /// A path (not yet made) inside one parent folder per test process, which is removed
    /// when the process exits, so no test leaves folders behind.
    static func temporaryPath(_ prefix: String) -> String {
        temporaryParent + "/" + prefix + UUID().uuidString
    }

    private static let temporaryParent: String = {
        let path = FileManager().temporaryDirectory.appendingPathComponent("iapsim-tests-" + UUID().uuidString).path
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
}
