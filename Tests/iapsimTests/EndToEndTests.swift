import Foundation
import IAPSimTestSupport
import Testing

/// Runs the built `iapsim` the way a script does: a real process, a temporary state folder,
/// stdin not a terminal, and assertions on stdout, stderr and the exit status.
@Suite struct EndToEndTests {
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["IAPSIM_BINARY"] { return path }
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("iapsim").path }
        return candidates.first { FileManager().isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let state = Harness.temporaryPath("iapsim-e2e-")

    func launch(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Harness.repositoryRoot)
        var environment = ProcessInfo.processInfo.environment
        environment["IAPSIM_STATE_DIR"] = state
        environment.removeValue(forKey: "IAPSIM_CATALOG")
        environment.removeValue(forKey: "IAPSIM_LOCALE")
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    func run(_ arguments: String...) throws -> Output {
        let (process, out, err) = try launch(arguments)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    func json(_ arguments: String...) throws -> [String: Any] {
        let (process, out, _) = try launch(arguments + ["--json"])
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// A full standard output must not trap after the purchase is saved: exit 74 says the
    /// output failed, and the purchase is there (a retrying script would otherwise buy twice).
    @Test func aFullStandardOutputIs74AndThePurchaseIsSaved() throws {
        let devFull = try External.file("/dev/full")
        for arguments in [["buy", "com.example.app.book"], ["buy", "com.example.app.coins100", "--json"], ["list"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: Harness.repositoryRoot)
            var environment = ProcessInfo.processInfo.environment
            environment["IAPSIM_STATE_DIR"] = state
            process.environment = environment
            let full = try #require(FileHandle(forWritingAtPath: devFull))
            let err = Pipe()
            process.standardOutput = full
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 74, "\(arguments): \(stderr)")
            #expect(stderr.contains("could not write to standard output"))
        }
        let status = try json("status")
        #expect(status["purchasedProductIdentifiers"] as? [String] == ["com.example.app.book"])
        #expect((status["consumables"] as? [String: Int])?["com.example.app.coins100"] == 1)
    }

    @Test func listRunsOnTheBundledCatalog() throws {
        let result = try run("list")
        #expect(result.status == 0)
        #expect(result.stdout.contains("Apple Book"))
        #expect(result.stdout.contains("$0.99"))
        #expect(result.stderr.contains("com.example.app.retired"))
    }

    @Test func buyThenStatusWithoutATerminalDoesNotPrompt() throws {
        let buy = try run("buy", "com.razeware.inapprage.nightlyrage")
        #expect(buy.status == 0)
        #expect(buy.stderr.isEmpty)
        #expect(buy.stdout == "Purchased “Nightly Rage” for $1.99. Transaction 1.\n")
        let status = try json("status")
        #expect(status["purchasedProductIdentifiers"] as? [String] == ["com.razeware.inapprage.nightlyrage"])
    }

    @Test func reinstallThenRestoreThenStatus() throws {
        #expect(try run("buy", "Demo.TechoverInAppPurchase.co.Apple.Book").status == 0)
        #expect(try run("reset", "--local").status == 0)
        #expect(try json("status")["purchasedProductIdentifiers"] as? [String] == [])
        let restore = try run("restore")
        #expect(restore.stdout == "Restored 1 purchase.\n")
        #expect(
            try json("status")["purchasedProductIdentifiers"] as? [String] == [
                "Demo.TechoverInAppPurchase.co.Apple.Book"
            ])
    }

    @Test func anUnknownIdentifierExits5() throws {
        let result = try run("buy", "com.example.nope")
        #expect(result.status == 5)
        #expect(result.stderr.contains("com.example.nope"))
    }

    @Test func aCorruptStateFileIsLeftByteForByte() throws {
        try FileManager().createDirectory(atPath: state, withIntermediateDirectories: true)
        let bytes = Data([0x7B, 0x00, 0xFF, 0x22])
        try bytes.write(to: URL(fileURLWithPath: state + "/purchases.json"))
        let result = try run("buy", "com.example.app.coins100")
        #expect(result.status == 65)
        #expect(result.stderr.contains(state + "/purchases.json"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: state + "/purchases.json")) == bytes)
    }

    @Test func twentyConcurrentBuysAreAllCounted() throws {
        let processes = try (0..<20).map { _ in try launch(["buy", "com.example.app.coins100", "--yes"]) }
        for (process, out, err) in processes {
            _ = out.fileHandleForReading.readDataToEndOfFile()
            _ = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let status = try json("status")
        #expect(status["consumables"] as? [String: Int] == ["com.example.app.coins100": 20])
        #expect(status["transactionCount"] as? Int == 20)
    }

    /// For every corpus file, the products of each type `list --json` reports equal an
    /// independent count over the raw JSON, and `check` ends in 0 or 65, never a crash.
    @Test func everyCorpusFileListsItsProductsAndChecks() throws {
        let corpus = try External.corpus()
        let names = try FileManager().contentsOfDirectory(atPath: corpus + "/storekit")
        #expect(names.count >= 12)
        let typeNames = [
            "Consumable": "consumable", "NonConsumable": "nonConsumable", "RecurringSubscription": "autoRenewable",
            "NonRenewingSubscription": "nonRenewable",
        ]
        for name in names.sorted() where name.hasSuffix(".storekit") {
            let path = corpus + "/storekit/" + name
            let raw =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
            var expected: [String: Int] = [:]
            let entries =
                (raw["products"] as? [[String: Any]] ?? [])
                + (raw["nonRenewingSubscriptions"] as? [[String: Any]] ?? [])
                + (raw["subscriptionGroups"] as? [[String: Any]] ?? []).flatMap {
                    $0["subscriptions"] as? [[String: Any]] ?? []
                }
            for entry in entries { expected[typeNames[entry["type"] as! String]!, default: 0] += 1 }
            let listed = try json("list", "--storekit", path)
            var counted: [String: Int] = [:]
            for product in listed["products"] as? [[String: Any]] ?? [] {
                counted[product["type"] as! String, default: 0] += 1
            }
            #expect(counted == expected, "\(name)")
            let check = try run("check", "--storekit", path)
            #expect(check.status == 0 || check.status == 65, "\(name): \(check.stderr)")
        }
    }

    @Test func theStateFileIsPrivate() throws {
        #expect(try run("buy", "com.example.app.book").status == 0)
        let file = try FileManager().attributesOfItem(atPath: state + "/purchases.json")
        let folder = try FileManager().attributesOfItem(atPath: state)
        #expect((file[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }
}
