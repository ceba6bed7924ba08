import ChirperCore
import Testing

@Suite("The command line")
struct LaunchOptionsTests {
    @Test("options with their values, apart or joined; flags; --ca-file kept each time; the last of a repeated one")
    func readsOptions() throws {
        let request = try LaunchOptions.parse([
            "--api-key", "k3y", "--output=null", "--per-page", "100", "--no-color", "--json", "--no-mpris",
            "--ca-file", "a.pem", "--ca-file=b.pem", "--graphics", "sixel", "--graphics", "kitty", "--cache-size", "0",
        ])
        var expected = LaunchOptions()
        expected.apiKey = "k3y"
        expected.output = "null"
        expected.perPage = 100
        expected.noColor = true
        expected.json = true
        expected.noMpris = true
        expected.caFiles = ["a.pem", "b.pem"]
        expected.graphics = "kitty"
        expected.cacheSize = "0"
        #expect(request == .run(expected))
        #expect(try LaunchOptions.parse([]) == .run(LaunchOptions()), "no arguments: the defaults")
        #expect(LaunchOptions().apiURL == "https://xeno-canto.org/api/3/recordings")
    }

    @Test("--help and --version win wherever they are; --generate-completion-script names its shell")
    func helpVersionCompletions() throws {
        #expect(try LaunchOptions.parse(["--output", "null", "-h"]) == .help)
        #expect(try LaunchOptions.parse(["--bogus", "--help"]) == .help)
        #expect(try LaunchOptions.parse(["--version"]) == .version)
        #expect(try LaunchOptions.parse(["--generate-completion-script", "zsh"]) == .completionScript(.zsh))
        #expect(try LaunchOptions.parse(["--generate-completion-script=fish"]) == .completionScript(.fish))
    }

    @Test(
        "a bad command line is one line saying what is wrong",
        arguments: [
            (["--bogus"], "Unknown option '--bogus'"),
            (["-x"], "Unexpected argument '-x'; a path that starts with - goes after --"),
            (["--output"], "Missing value for '--output <output>'"),
            (["--catalog", "--json"], "Missing value for '--catalog <dir>'"),
            (["--per-page", "x"], "--per-page takes a whole number, not 'x'"),
            (["--json=yes"], "--json takes no value"),
            (
                ["--generate-completion-script", "tcsh"],
                "--generate-completion-script takes bash, zsh or fish, not 'tcsh'"
            ),
        ])
    func refusals(arguments: [String], message: String) {
        #expect(throws: LaunchError.self) { try LaunchOptions.parse(arguments) }
        do {
            _ = try LaunchOptions.parse(arguments)
        } catch {
            #expect(error.message == message)
            #expect(LaunchHelp.failure(error).hasPrefix("Error: \(message)\nUsage: chirper-play <options> [PATH…]\n"))
        }
    }

    @Test("--help lists every option with its value, its help and its default, within 80 columns")
    func helpText() {
        let text = LaunchHelp.text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.first == "OVERVIEW: Search xeno-canto's bird and wildlife recordings and listen to them")
        let options = lines.drop { $0 != "OPTIONS:" }.dropFirst()
        for option in LaunchOptions.table {
            #expect(options.contains { $0.hasPrefix("  \(option.label)  ") }, "\(option.label)")
        }
        #expect(text.contains("--output <output>       Where sound goes: pulse, null (decode only) or"))
        #expect(text.contains("(default: pulse)"))
        #expect(options.last { !$0.isEmpty } == "  -h, --help              Show help information.")
    }

    @Test("each shell's completion script offers every option and the values of those that have a few")
    func completionScripts() {
        for shell in CompletionShell.allCases {
            let script = LaunchHelp.completionScript(for: shell)
            for option in LaunchOptions.table {
                #expect(script.contains(option.name.rawValue), "\(shell) lacks \(option.name.rawValue)")
            }
            #expect(script.contains("auto kitty sixel blocks"), "\(shell) offers the graphics modes")
        }
        #expect(LaunchHelp.completionScript(for: .bash).contains("complete -F _chirper_play chirper-play"))
        #expect(LaunchHelp.completionScript(for: .zsh).hasPrefix("#compdef chirper-play"))
    }
}
