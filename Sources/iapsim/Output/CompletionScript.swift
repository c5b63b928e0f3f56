import IAPSimKit

/// `iapsim completion bash|zsh|fish`: shell scripts that complete commands, options, their
/// values, setting values, and product identifiers from the current catalog (asked of iapsim
/// itself with the hidden `iapsim completion products`, passing on any --catalog, --storekit
/// or --product-ids).
///
/// A catalog is data, never code: an identifier such as `$(rm -rf ~)` must not run when TAB is
/// pressed. So no script hands catalog text to anything that expands it (`compgen -W`, `eval`,
/// an unquoted substitution): bash and zsh read the identifiers as lines, compare them with a
/// quoted prefix and offer each quoted with `printf %q`; fish offers the lines of a command
/// substitution, which it never expands again.
enum CompletionScript {
    static func script(for shell: Completion.Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    static var shells: [String] { Completion.Shell.allCases.map(\.rawValue) }

    /// Every command name and alias.
    private static var commands: [String] { Registry.words }

    /// The commands whose first argument is a product identifier.
    private static var productCommands: [String] {
        Registry.visible.filter { $0.arguments.first?.kind == .productID }.flatMap { [$0.name] + $0.aliases }
    }

    /// Each command's fixed words by position (`clock advance`, `transactions delete`).
    private static var actionWords: [(command: String, position: Int, words: [String])] {
        Registry.visible.flatMap { spec in
            spec.arguments.enumerated().compactMap { position, argument in
                if case .word(let words) = argument.kind { return (spec.name, position, words) }
                return nil
            }
        }
    }

    /// Every option of every command, once by name, with the values any of them takes.
    private static var options: [OptionSpec] {
        Registry.allOptions.map { option in
            var merged = option
            for other in Registry.commands.flatMap({ $0.spec.options }) where other.name == option.name {
                merged.values += other.values.filter { !merged.values.contains($0) }
            }
            return merged
        }
    }

    /// The options that name the catalog: passed on to `iapsim completion products`.
    private static let catalogOptions = ["catalog", "storekit", "product-ids"]

    /// The options with a known set of values, from the commands' specs.
    private static var values: [(option: String, words: [String])] {
        options.compactMap { $0.values.isEmpty ? nil : ($0.name, $0.values) }
    }

    private static var helpTopics: [String] { HelpTopic.named.map(\.word) }

    private static func words(_ list: [String]) -> String { list.joined(separator: " ") }

    /// `clock:0) _iapsim_add "$cur" advance set …;;`: each command's fixed words.
    private static var actionLines: String {
        actionWords.filter { $0.command != "completion" }.map {
            "      \($0.command):\($0.position)) _iapsim_add \"$cur\" \(words($0.words)) ;;"
        }.joined(separator: "\n")
    }

    /// The bash function body; zsh runs the same one through `bashcompinit`.
    private static var bashFunctions: String {
        let valueOptions = options.filter { $0.takesValue && !catalogOptions.contains($0.name) }
            .map { "--" + $0.name }.joined(separator: "|")
        let optionValues = values.map { "    --\($0.option)) _iapsim_add \"$cur\" \(words($0.words)); return ;;" }
            .joined(separator: "\n")
        let settingValues = SettingKey.allCases.map {
            "            \($0.rawValue)) _iapsim_add \"$cur\" \(words($0.suggestedValues)) ;;"
        }.joined(separator: "\n")
        let keys = words(SettingKey.allCases.map(\.rawValue))
        return """
            # Catalog text is never evaluated: identifiers are read as lines, compared with a quoted
            # prefix and offered quoted (printf %q), so an identifier such as $(rm -rf ~) stays text.
            _iapsim_add() { # _iapsim_add CUR WORD...: each WORD that starts with CUR, quoted for the line
              local cur=$1 word quoted
              shift
              for word in "$@"; do
                printf -v quoted %q "$word"
                if [[ $word == "$cur"* || $quoted == "$cur"* ]]; then COMPREPLY+=("$quoted"); fi
              done
            }
            _iapsim_products() { # _iapsim_products CUR CATALOG-OPTION...: the catalog's identifiers
              local cur=$1 line
              shift
              while IFS= read -r line; do
                _iapsim_add "$cur" "$line"
              done < <(iapsim completion products "$@" 2>/dev/null)
            }
            _iapsim() {
              local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd="" i
              local -a catalog=() args=()
              COMPREPLY=()
              for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                  --catalog|--storekit|--product-ids) catalog+=("${COMP_WORDS[i]}" "${COMP_WORDS[i+1]}"); ((i++)) ;;
                  --catalog=*|--storekit=*|--product-ids=*) catalog+=("${COMP_WORDS[i]}") ;;
                  \(valueOptions)) ((i++)) ;;
                  -*) ;;
                  *) if [ -z "$cmd" ]; then cmd=${COMP_WORDS[i]}; else args+=("${COMP_WORDS[i]}"); fi ;;
                esac
              done
              case $prev in
                --catalog|--state-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                --storekit|--product-ids) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --product) _iapsim_products "$cur" "${catalog[@]}"; return ;;
                --to) return ;;
            \(optionValues)
              esac
              if [[ $cur == -* ]]; then
                _iapsim_add "$cur" \(words(options.map { "--" + $0.name }))
              elif [ -z "$cmd" ]; then
                _iapsim_add "$cur" \(words(commands))
              else
                case $cmd:${#args[@]} in
                  \(productCommands.map { "\($0):0" }.joined(separator: "|"))) _iapsim_products "$cur" "${catalog[@]}" ;;
                  help:0) _iapsim_add "$cur" \(words(commands + helpTopics)) ;;
                  completion:0) _iapsim_add "$cur" \(words(shells)) ;;
            \(actionLines)
                  settings:1) if [ "${args[0]}" = set ] || [ "${args[0]}" = reset ]; then _iapsim_add "$cur" \(keys); fi ;;
                  settings:2)
                    if [ "${args[0]}" = set ]; then
                      case ${args[1]} in
            \(settingValues)
                      esac
                    fi ;;
                esac
              fi
            }
            """
    }

    static var bash: String {
        """
        # bash completion for iapsim; generated by `iapsim completion bash`.
        \(bashFunctions)
        complete -F _iapsim iapsim

        """
    }

    /// zsh runs the bash functions through its `bashcompinit` emulation, which inserts the
    /// words as given (`compadd -Q`): they are already quoted.
    static var zsh: String {
        """
        #compdef iapsim
        # zsh completion for iapsim; generated by `iapsim completion zsh`. It uses zsh's
        # bashcompinit to run the same functions as the bash completion.
        autoload -U +X bashcompinit && bashcompinit
        \(bashFunctions)
        complete -F _iapsim iapsim

        """
    }

    /// A fish single-quoted string.
    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    static var fish: String {
        let valueOptions = options.filter(\.takesValue).map { "--" + $0.name }.joined(separator: " ")
        let catalogSwitches = catalogOptions.map { "--" + $0 }.joined(separator: " ")
        let catalogEquals = catalogOptions.map { "'--\($0)=*'" }.joined(separator: " ")
        var lines = [
            "# fish completion for iapsim; generated by `iapsim completion fish`.",
            "# Identifiers come from a command substitution, whose lines fish never expands again.",
            "complete -c iapsim -f",
            "",
            "# The words before the cursor that are not options or option values.",
            "function __iapsim_positional",
            "    set -l words (commandline -opc)",
            "    set -e words[1]",
            "    set -l skip 0",
            "    for word in $words",
            "        if test $skip = 1",
            "            set skip 0",
            "            continue",
            "        end",
            "        switch $word",
            "            case \(valueOptions)",
            "                set skip 1",
            "            case '-*'",
            "            case '*'",
            "                printf '%s\\n' $word",
            "        end",
            "    end",
            "end",
            "",
            "# __iapsim_at WORD...: whether the positional words before the cursor are exactly WORD...",
            "function __iapsim_at",
            "    set -l positional (__iapsim_positional)",
            "    test (count $positional) -eq (count $argv); or return 1",
            "    for i in (seq (count $argv))",
            "        test \"$positional[$i]\" = \"$argv[$i]\"; or return 1",
            "    end",
            "end",
            "",
            "# The catalog options on the line, passed on to `iapsim completion products`.",
            "function __iapsim_catalog_options",
            "    set -l words (commandline -opc)",
            "    set -l count (count $words)",
            "    for i in (seq 2 $count)",
            "        switch $words[$i]",
            "            case \(catalogSwitches)",
            "                if test $i -lt $count",
            "                    printf '%s\\n' $words[$i] $words[(math $i + 1)]",
            "                end",
            "            case \(catalogEquals)",
            "                printf '%s\\n' $words[$i]",
            "        end",
            "    end",
            "end",
            "",
            "function __iapsim_products",
            "    iapsim completion products (__iapsim_catalog_options) 2>/dev/null",
            "end",
            "",
        ]
        for spec in Registry.visible {
            for word in [spec.name] + spec.aliases {
                lines.append("complete -c iapsim -n __fish_use_subcommand -a \(word) -d \(fishQuoted(spec.abstract))")
            }
        }
        let atProductCommand = productCommands.map { "__iapsim_at \($0)" }.joined(separator: "; or ")
        lines.append("complete -c iapsim -n \(fishQuoted(atProductCommand)) -a '(__iapsim_products)'")
        lines.append("complete -c iapsim -n '__iapsim_at help' -a \(fishQuoted(words(helpTopics)))")
        lines.append("complete -c iapsim -n '__iapsim_at completion' -a \(fishQuoted(words(shells)))")
        for action in actionWords where action.position == 0 && action.command != "completion" {
            lines.append("complete -c iapsim -n '__iapsim_at \(action.command)' -a \(fishQuoted(words(action.words)))")
        }
        lines.append(
            "complete -c iapsim -n '__iapsim_at settings set; or __iapsim_at settings reset' -a "
                + fishQuoted(words(SettingKey.allCases.map(\.rawValue))))
        for key in SettingKey.allCases {
            lines.append(
                "complete -c iapsim -n '__iapsim_at settings set \(key.rawValue)' -a \(fishQuoted(words(key.suggestedValues)))"
            )
        }
        for spec in options {
            var line = "complete -c iapsim -l \(spec.name)"
            if let short = spec.short { line += " -s \(short)" }
            if spec.takesValue { line += " -r" }
            if spec.completes == .productID {
                line += " -a '(__iapsim_products)'"
            } else if spec.completes == .directory {
                line += " -a '(__fish_complete_directories)'"
            } else if spec.completes == .file {
                line += " -F"
            } else if let words = values.first(where: { $0.option == spec.name })?.words {
                line += " -a \(fishQuoted(self.words(words)))"
            }
            lines.append(line + " -d \(fishQuoted(spec.help))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
