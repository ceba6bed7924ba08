/// chirper-play's command line: the options, read from the arguments by one table that also writes `--help`
/// (which the man page is made from) and the shells' completion scripts.
///
/// Read by hand rather than by swift-argument-parser: its reflection over the command's properties, and the
/// protocol-conformance scans each first cast starts, cost every launch time to its first line and memory
/// (BENCH.md).
public struct LaunchOptions: Sendable, Hashable {
    public var apiKey: String?
    public var apiURL = XenoCantoDefaults.apiURL
    public var catalog: String?
    public var output = "pulse"
    public var perPage: Int?
    public var noColor = false
    public var cacheSize = "500MB"
    public var json = false
    public var noMpris = false
    public var offline = false
    public var caFiles: [String] = []
    public var contrast = "auto"
    public var graphics = "auto"
    /// Where `identify` finds BirdNET's model (nil: `$XDG_DATA_HOME/chirper-play/models/birdnet-2.4`).
    public var modelDirectory: String?
    /// Files and folders to open at the start (the arguments that are no options).
    public var paths: [String] = []

    public init() {}
}

/// Where the API is when `--api-url` does not say.
public enum XenoCantoDefaults {
    public static let apiURL = "https://xeno-canto.org/api/3/recordings"
}

/// What the command line asks for.
public enum LaunchRequest: Sendable, Hashable {
    case run(LaunchOptions)
    case help
    case version
    case completionScript(CompletionShell)
    /// `chirper-play identify PATH… --out DIR …`: BirdNET on files, without the session.
    case identify(BatchIdentifyOptions)
}

/// A shell `--generate-completion-script` writes for.
public enum CompletionShell: String, Sendable, Hashable, CaseIterable {
    case bash, zsh, fish
}

/// A command line that cannot be run: one line saying why.
public struct LaunchError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// One option of the command line.
public struct LaunchOption: Sendable {
    public enum Name: String, Sendable, Hashable, CaseIterable {
        case apiKey = "api-key"
        case apiURL = "api-url"
        case catalog
        case output
        case perPage = "per-page"
        case noColor = "no-color"
        case cacheSize = "cache-size"
        case json
        case noMpris = "no-mpris"
        case offline
        case caFile = "ca-file"
        case contrast
        case graphics
        case modelDir = "model-dir"
    }

    /// What a shell offers for the option's value.
    public enum Completion: Sendable, Hashable {
        case nothing
        case file
        case directory
        case words([String])
    }

    public let name: Name
    /// The value's name in `--help` (nil: a flag, which takes none).
    public let valueName: String?
    public let help: String
    public let defaultValue: String?
    public let completion: Completion
    let apply: @Sendable (inout LaunchOptions, String) throws(LaunchError) -> Void

    /// `--name` or `--name <value>`.
    public var label: String { "--\(name.rawValue)" + (valueName.map { " <\($0)>" } ?? "") }
}

extension LaunchOptions {
    /// Every option, in the order `--help` lists them.
    public static let table: [LaunchOption] = [
        LaunchOption(
            name: .apiKey, valueName: "key", help: "xeno-canto API key (default: $XENO_CANTO_API_KEY).",
            defaultValue: nil, completion: .nothing
        ) { $0.apiKey = $1 },
        LaunchOption(
            name: .apiURL, valueName: "url", help: "xeno-canto API address (mirrors, tests).",
            defaultValue: XenoCantoDefaults.apiURL, completion: .nothing
        ) { $0.apiURL = $1 },
        LaunchOption(
            name: .catalog, valueName: "dir", help: "Use the offline catalog in this folder instead of xeno-canto.",
            defaultValue: nil, completion: .directory
        ) { $0.catalog = $1 },
        LaunchOption(
            name: .output, valueName: "output", help: "Where sound goes: pulse, null (decode only) or wav:PATH.",
            defaultValue: "pulse", completion: .words(["pulse", "null", "wav:"])
        ) { $0.output = $1 },
        LaunchOption(
            name: .perPage, valueName: "n", help: "Recordings per page (xeno-canto: 50-500).", defaultValue: nil,
            completion: .nothing
        ) { (options: inout LaunchOptions, value: String) throws(LaunchError) in
            guard let number = Int(value) else {
                throw LaunchError("--per-page takes a whole number, not '\(value)'")
            }
            options.perPage = number
        },
        LaunchOption(
            name: .noColor, valueName: nil, help: "No colours (also when NO_COLOR is set).", defaultValue: nil,
            completion: .nothing
        ) { options, _ in options.noColor = true },
        LaunchOption(
            name: .cacheSize, valueName: "size",
            help: "Bound of the play cache in $XDG_CACHE_HOME/chirper-play, e.g. 500MB, 2G; 0 turns it off.",
            defaultValue: "500MB", completion: .nothing
        ) { $0.cacheSize = $1 },
        LaunchOption(
            name: .modelDir, valueName: "dir",
            help: "Where identify finds BirdNET's model (make model MODEL_DIR=dir puts it there).",
            defaultValue: "$XDG_DATA_HOME/chirper-play/models/birdnet-2.4", completion: .directory
        ) { $0.modelDirectory = $1 },
        LaunchOption(
            name: .json, valueName: nil,
            help: "Print the pipe protocol as JSON lines (one object a line; errors on standard error), even on a "
                + "terminal.",
            defaultValue: nil, completion: .nothing
        ) { options, _ in options.json = true },
        LaunchOption(
            name: .noMpris, valueName: nil,
            help: "Do not offer chirper-play to the desktop (MPRIS: media keys, playerctl).", defaultValue: nil,
            completion: .nothing
        ) { options, _ in options.noMpris = true },
        LaunchOption(
            name: .offline, valueName: nil, help: "Search only the saved and cached recordings (no network).",
            defaultValue: nil, completion: .nothing
        ) { options, _ in options.offline = true },
        LaunchOption(
            name: .caFile, valueName: "file",
            help: "Also trust the CA certificates in this PEM file for HTTPS (a proxy's CA); may be repeated.",
            defaultValue: nil, completion: .file
        ) { $0.caFiles.append($1) },
        LaunchOption(
            name: .contrast, valueName: "mode",
            help: "Sonogram contrast: auto (from each picture's own levels) or fixed (-90 to -10 dB).",
            defaultValue: "auto", completion: .words(["auto", "fixed"])
        ) { $0.contrast = $1 },
        LaunchOption(
            name: .graphics, valueName: "mode",
            help: "How sono draws: auto (ask the terminal), kitty, sixel or blocks (half-blocks).",
            defaultValue: "auto", completion: .words(GraphicsMode.allCases.map(\.rawValue))
        ) { $0.graphics = $1 },
    ]

    /// Reads the arguments (without the program's name). `-h`/`--help` and `--version` win wherever they are;
    /// an option's value follows it (`--output null`) or is joined to it (`--output=null`); a repeated option
    /// keeps its last value (`--ca-file` keeps each).
    public static func parse(_ arguments: [String]) throws(LaunchError) -> LaunchRequest {
        if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) { return .help }
        if arguments.contains("--version") { return .version }
        if arguments.first == "identify" {
            return .identify(try BatchIdentifyOptions.parse(Array(arguments.dropFirst())))
        }
        var options = LaunchOptions()
        var words = ArgumentWords(arguments)
        while let word = try words.next() {
            guard case .option(let name, let joined) = word else {
                if case .path(let path) = word { options.paths.append(path) }
                continue
            }
            if name == "generate-completion-script" {
                let value = try words.value(joined: joined, for: "--\(name) <shell>")
                guard let shell = CompletionShell(rawValue: value) else {
                    throw LaunchError("--generate-completion-script takes bash, zsh or fish, not '\(value)'")
                }
                return .completionScript(shell)
            }
            guard let option = table.first(where: { $0.name.rawValue == name }) else {
                if ["out", "shard", "jobs", "min-confidence", "overlap"].contains(name) {
                    throw LaunchError(
                        "--\(name) is batch identify's: it starts with identify (\(BatchIdentifyOptions.usage))")
                }
                throw LaunchError("Unknown option '--\(name)'")
            }
            if option.valueName == nil {
                if joined != nil { throw LaunchError("\(option.label) takes no value") }
                try option.apply(&options, "")
            } else {
                try option.apply(&options, try words.value(joined: joined, for: option.label))
            }
        }
        return .run(options)
    }
}
