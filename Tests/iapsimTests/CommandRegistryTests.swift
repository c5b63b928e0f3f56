import Foundation
import IAPSimKit
import Testing

@testable import iapsim

/// A command is one type in one file: a hypothetical one, declared here, parses, runs and has
/// its help page with nothing else written for it.
@Suite struct CommandRegistryTests {
    struct Ping: CLICommand {
        static let spec = CommandSpec(
            name: "ping", abstract: "Answer pong.", synopsis: "[<word>]", discussion: "Echoes a word back.",
            arguments: [.init("word", kind: .text)],
            options: [.flag("loud", help: "Shout it.")], examples: ["iapsim ping hello --loud"])

        let word: String
        let loud: Bool

        init(_ words: ParsedWords) throws(UsageError) {
            try words.expect(count: 1)
            word = words.arguments.first ?? "pong"
            loud = words.flag("loud")
        }

        func run(in context: CommandContext) throws -> Report {
            let text = loud ? word.uppercased() : word
            return Report(json: .object([("word", .string(text))]), lines: [text])
        }
    }

    @Test func aNewCommandIsOneTypeAndOneRegistryLine() throws {
        let commands = Registry.commands + [Ping.self]
        let invocation = try ArgumentParser.parse(["--json", "ping", "hi", "--loud"], commands: commands)
        let ping = try #require(invocation.command as? Ping)
        #expect(ping.word == "hi" && ping.loud && invocation.options.json)
        let context = CommandContext(
            options: invocation.options,
            context: Context(currentDirectory: "/", now: { Date(timeIntervalSince1970: 0) }),
            console: Console(
                writeOut: { _ in }, writeError: { _ in }, readLine: { nil }, inputIsTerminal: false,
                outputIsTerminal: false, errorIsTerminal: false))
        let report = try context.run(ping)
        guard case .value(let json)? = report.json else {
            Issue.record("no JSON")
            return
        }
        #expect(json == .object([("word", .string("HI"))]))
        let page = HelpText.command(Ping.spec)
        #expect(page.contains("USAGE: iapsim ping [<word>] [options]"))
        #expect(page.contains("--loud"))
        #expect(throws: UsageError("'--loud' is not an option of 'status'", command: "status")) {
            try ArgumentParser.parse(["status", "--loud"], commands: commands)
        }
        // Without its registry line, the command does not exist.
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["ping"]) }
    }

    /// The parser knows whether `--x` takes a value before it knows the command: every command
    /// that has an option of a name gives it the same arity and short letter.
    @Test func eachOptionNameMeansOneThingEverywhere() {
        let options = GlobalOptions.specs + Registry.commands.flatMap { $0.spec.options }
        for option in options {
            for other in options where other.name == option.name {
                #expect(other.takesValue == option.takesValue, "--\(option.name)")
                #expect(other.short == option.short, "--\(option.name)")
            }
        }
    }

    @Test func commandNamesAndAliasesAreUnique() {
        let words = Registry.commands.flatMap { [$0.spec.name] + $0.spec.aliases }
        #expect(words.count == Set(words).count)
    }
}
