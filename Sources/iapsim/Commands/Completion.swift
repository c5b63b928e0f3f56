import Foundation
import IAPSimKit

struct Completion: CLICommand {
    static let spec = CommandSpec(
        name: "completion", abstract: "Print a shell completion script: bash, zsh or fish.",
        synopsis: "bash|zsh|fish",
        discussion: """
            Completes commands, options and their values, and product identifiers from the
            current catalog. 'make install' installs all three; to try one now:
            source <(iapsim completion bash)
            """,
        arguments: [.init("shell", kind: .word(Shell.allCases.map(\.rawValue)))],
        options: [],
        examples: [
            "source <(iapsim completion bash)",
            "mkdir -p ~/.config/fish/completions && iapsim completion fish > ~/.config/fish/completions/iapsim.fish",
        ])

    let shell: Shell?

    /// The shells `iapsim completion` writes scripts for.
    enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    init(_ words: ParsedWords) throws(UsageError) {
        let word = try words.only("shell")
        if word == "products" {
            // The catalog's identifiers, one a line, for the completion scripts (not listed in help).
            shell = nil
            return
        }
        guard let shell = Shell(rawValue: word) else {
            throw words.error("completion \(word): expected bash, zsh or fish")
        }
        self.shell = shell
    }

    func run(in context: CommandContext) throws -> Report {
        guard let shell else {
            // For the completion scripts: identifiers one per line, silence on any error.
            let identifiers = (try? context.loadCatalogQuietly())?.products.map(\.id) ?? []
            return Report(lines: identifiers)
        }
        return Report().verbatim(CompletionScript.script(for: shell))
    }
}
