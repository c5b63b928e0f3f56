import Foundation
import IAPSimHTTP
import IAPSimJSON
import IAPSimKit
import Testing

@testable import iapsim

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the page of `iapsim ui` may never do, whoever holds its cookie: run a program, write
/// outside the state, change the certificates, delete a customer or a transaction.
@Suite struct PagePolicyTests {
    static func action(_ argv: [String]) throws -> HTTPRequest {
        let port = TransactionManagerTests.port
        let body = JSONValue.object([("argv", .array(argv.map(JSONValue.string)))]).serialized()
        return try HTTPRequest(
            method: "POST", target: "/api/action",
            headers: HTTPHeaders([
                ("Host", "127.0.0.1:\(port)"), ("Cookie", "iapsim-\(port)=t0ken"),
                ("Content-Type", "application/json"),
            ]), body: Array(body.utf8))
    }

    /// `clock exec` from the page would run any program as the user who started `iapsim ui`.
    @Test(arguments: [
        ["clock", "exec", "--", "sh", "-c", "touch MARKER"], ["clock", "exec", "touch", "MARKER"],
        ["clock", "--", "exec", "sh", "-c", "touch MARKER"], ["clock", "exec", "--", "touch", "MARKER"],
    ])
    func clockExecRunsNothing(argv: [String]) throws {
        let harness = Harness()
        let marker = harness.stateDirectory + "-marker"
        let words = argv.map { $0.replacingOccurrences(of: "MARKER", with: marker) }
        let response = try TransactionManagerTests.manager(harness).respond(try Self.action(words))
        #expect(response.status.code == 403)
        #expect(String(decoding: response.body, as: UTF8.self).contains("clock exec"))
        #expect(!FileManager().fileExists(atPath: marker), "the program did not run")
    }

    /// Every verb of every command the page may name is either on the page's list or refused,
    /// and the refused ones are exactly those that spawn, delete or read outside the state: a
    /// verb added to a command later is off the page until someone puts it on the list.
    @Test func everyVerbOfEveryPageCommandIsClassified() throws {
        var allowed: Set<String> = []
        var refused: Set<String> = []
        for name in PageCommands.actions.union(PageCommands.reads).sorted() {
            let spec = try #require(Registry.command(named: name)).spec
            guard case .word(let verbs) = spec.arguments.first?.kind else { continue }
            for verb in verbs {
                let words = ParsedWords(command: name, arguments: [verb])
                do {
                    try PageCommands.checkVerbAndOptions(words, of: spec)
                    allowed.insert("\(name) \(verb)")
                } catch {
                    #expect(error == .notAllowed("\(name) \(verb)"))
                    refused.insert("\(name) \(verb)")
                }
            }
        }
        #expect(
            allowed == [
                "clock advance", "clock set", "clock freeze", "clock run", "clock reset", "accounts add",
                "settings set", "settings reset", "jws transaction", "notifications show",
            ])
        #expect(
            refused == [
                "clock exec", "accounts remove", "transactions delete", "jws renewal", "jws app-transaction",
                "jws decode", "notifications resend",
            ])
    }

    /// `--certs DIR` makes a signing identity in any folder: no words from the page may give
    /// it, in an action or smuggled into a read's query.
    @Test func noWordsFromThePageNameACertificatesFolder() throws {
        let harness = Harness()
        let folder = harness.stateDirectory + "-certs"
        let manager = try TransactionManagerTests.manager(harness)
        #expect(manager.respond(try Self.action(["status", "--certs", folder])).status.code == 403)
        #expect(manager.respond(try Self.action(["transactions", "--certs=" + folder])).status.code == 403)
        _ = manager.respond(try Self.action(["buy", "com.example.app.book"]))
        for value in ["--certs=\(folder)", "--certs%3D\(folder)"] {
            let read = try TransactionManagerTests.request("/api/read/jws?transaction=\(value)")
            let answer = try? JSONValue.parse(manager.respond(read).body)
            #expect(answer?["exitCode"] != .number("0"))
        }
        #expect(!FileManager().fileExists(atPath: folder), "no certificates were made outside the state")
    }

    /// After a program run by `clock exec`, iapsim's own signal handlers are back: a server
    /// that ran one still stops on SIGTERM.
    @Test func theSignalHandlersAreRestoredAfterAChildProcess() throws {
        // The handler and the flags (without glibc's own SA_RESTORER, 0x04000000, which it adds
        // to any handler it sets): the kernel fills only part of the rest of the structure.
        func handlers() -> [[UInt8]] {
            ChildProcess.Forwarding.signals.map { number in
                var current = sigaction()
                sigaction(number, nil, &current)
                #if canImport(Glibc)
                    let handler = withUnsafeBytes(of: current.__sigaction_handler) { Array($0) }
                #else
                    let handler = withUnsafeBytes(of: current.__sigaction_u) { Array($0) }
                #endif
                let flags = Int64(current.sa_flags) & ~0x0400_0000
                return handler + withUnsafeBytes(of: flags) { Array($0) }
            }
        }
        let before = handlers()
        let status = try ChildProcess.run(["true"], environment: ProcessInfo.processInfo.environment)
        #expect(status == 0)
        #expect(handlers() == before)
    }
}
