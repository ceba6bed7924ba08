/// What the command line writes from `LaunchOptions.table`: `--help`, the usage after an error, and the bash,
/// zsh and fish completion scripts `make install` puts in place.
public enum LaunchHelp {
    public static let abstract =
        "Search xeno-canto's bird and wildlife recordings and listen to them from the terminal."
    public static let discussion =
        "With no API key, chirper-play uses its offline demo catalog of synthetic sounds. Give a key with "
        + "--api-key or XENO_CANTO_API_KEY (get one at https://xeno-canto.org/account) to search xeno-canto. "
        + "Behind a proxy it reads HTTPS_PROXY, ALL_PROXY and NO_PROXY as curl does. "
        + "Files and folders named after the options (recordings of your own: WAV, FLAC, MP3) are opened and "
        + "listed at the start, with no key needed. "
        + "'chirper-play identify PATH… --out DIR' runs BirdNET on files and folders without the session, "
        + "writing a Raven selection table per file (see the README for --shard, --jobs and resuming). "
        + "Type help at the prompt for the commands. In a pipe it reads commands from standard input and "
        + "writes one stable line per state change (see the README)."
    public static let usage = "Usage: chirper-play <options> [PATH…]\n  See 'chirper-play --help' for more information."

    /// Lines are wrapped before column 80; an option's help starts at column 26.
    static let width = 79
    static let helpColumn = 26

    /// `--help`.
    public static var text: String {
        var lines = wrap("OVERVIEW: " + abstract, width: width) + [""] + wrap(discussion, width: width)
        lines += ["", "USAGE: chirper-play <options> [PATH…]"]
        lines += wrap(BatchIdentifyOptions.usage, width: width - 9).enumerated().map {
            ($0 == 0 ? "       " : "         ") + $1
        }
        lines += ["", "OPTIONS:"]
        let rows =
            LaunchOptions.table.map { option in
                (option.label, option.help + (option.defaultValue.map { " (default: \($0))" } ?? ""))
            } + [("--version", "Show the version."), ("-h, --help", "Show help information.")]
        for (label, help) in rows {
            let text = wrap(help, width: width - helpColumn)
            let lead = "  " + label
            lines.append(lead + String(repeating: " ", count: max(2, helpColumn - lead.count)) + text[0])
            lines += text.dropFirst().map { String(repeating: " ", count: helpColumn) + $0 }
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// What is written on standard error for a command line that cannot be run.
    public static func failure(_ error: LaunchError) -> String {
        "Error: \(error.message)\n\(usage)\n"
    }

    /// `text` broken at spaces into lines of at most `width` characters.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }

    // MARK: - Completion scripts

    /// The completion script for `shell`.
    public static func completionScript(for shell: CompletionShell) -> String {
        switch shell {
        case .bash: return bash
        case .zsh: return zsh
        case .fish: return fish
        }
    }

    private static var flags: [String] {
        LaunchOptions.table.map { "--\($0.name.rawValue)" } + ["--version", "--help", "-h"]
    }

    static var bash: String {
        var cases: [String] = []
        var plain: [String] = []
        for option in LaunchOptions.table where option.valueName != nil {
            let flag = "--\(option.name.rawValue)"
            switch option.completion {
            case .nothing: plain.append(flag)
            case .file: cases.append("        \(flag)) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;")
            case .directory: cases.append("        \(flag)) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;")
            case .words(let words):
                cases.append(
                    "        \(flag)) COMPREPLY=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\")); return ;;"
                )
            }
        }
        if !plain.isEmpty { cases.append("        \(plain.joined(separator: "|"))) return ;;") }
        return """
            # bash completion for chirper-play
            _chirper_play() {
                local cur="${COMP_WORDS[COMP_CWORD]}"
                local prev="${COMP_WORDS[COMP_CWORD-1]}"
                case "$prev" in
            \(cases.joined(separator: "\n"))
                esac
                COMPREPLY=($(compgen -W "\(flags.joined(separator: " "))" -- "$cur"))
            }
            complete -F _chirper_play chirper-play

            """
    }

    static var zsh: String {
        func quoted(_ help: String) -> String {
            help.replacingEvery("\\", with: "\\\\").replacingEvery("'", with: "'\\''")
                .replacingEvery("[", with: "\\[").replacingEvery("]", with: "\\]").replacingEvery(":", with: "\\:")
        }
        var specs: [String] = []
        for option in LaunchOptions.table {
            let flag = "--\(option.name.rawValue)"
            let repeatable = option.name == .caFile ? "*" : ""
            guard let value = option.valueName else {
                specs.append("'\(flag)[\(quoted(option.help))]'")
                continue
            }
            let action: String
            switch option.completion {
            case .nothing: action = " "
            case .file: action = "_files"
            case .directory: action = "_files -/"
            case .words(let words): action = "(\(words.joined(separator: " ")))"
            }
            specs.append("'\(repeatable)\(flag)[\(quoted(option.help))]:\(value):\(action)'")
        }
        specs.append("'--version[Show the version.]'")
        specs.append("'(-h --help)'{-h,--help}'[Show help information.]'")
        return """
            #compdef chirper-play
            # zsh completion for chirper-play
            _arguments -s \\
              \(specs.joined(separator: " \\\n  "))

            """
    }

    static var fish: String {
        func quoted(_ help: String) -> String {
            help.replacingEvery("\\", with: "\\\\").replacingEvery("'", with: "\\'")
        }
        var lines = ["# fish completion for chirper-play", "complete -c chirper-play -f"]
        for option in LaunchOptions.table {
            var line = "complete -c chirper-play -l \(option.name.rawValue)"
            if option.valueName != nil {
                switch option.completion {
                case .nothing: line += " -x"
                case .file: line += " -r -F"
                case .directory: line += " -x -a '(__fish_complete_directories)'"
                case .words(let words): line += " -x -a '\(words.joined(separator: " "))'"
                }
            }
            lines.append(line + " -d '\(quoted(option.help))'")
        }
        lines.append("complete -c chirper-play -l version -d 'Show the version.'")
        lines.append("complete -c chirper-play -s h -l help -d 'Show help information.'")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    /// Every `target` replaced (without Foundation).
    fileprivate func replacingEvery(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
