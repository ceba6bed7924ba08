/// `chirper-play identify PATH… --out DIR [--min-confidence C] [--overlap S] [--shard K/N] [--jobs J]
/// [--model-dir DIR]`: BirdNET on files and folders, without the session, a selection table per file.
public struct BatchIdentifyOptions: Sendable, Hashable {
    public var paths: [String] = []
    /// Where the tables go, mirroring the folders analysed.
    public var out = ""
    public var identify = IdentifyOptions()
    /// This run's share of the sorted files: every `count`-th, from the `index`-th (from 1).
    public var shard = Shard(index: 1, count: 1)
    /// Files identified at once (nil: chosen from the cores); the cores are split between them.
    public var jobs: Int?
    public var modelDirectory: String?

    public init() {}

    public struct Shard: Sendable, Hashable {
        public var index: Int
        public var count: Int

        public init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }
    }

    public static let usage =
        "chirper-play identify PATH… --out DIR [--min-confidence 0-1] [--overlap 0-2.9] [--shard K/N] [--jobs J]"
        + " [--model-dir DIR]"

    /// Reads the arguments after `identify`. A value follows its option or is joined to it (`--out=tables`);
    /// everything after `--` is a path.
    public static func parse(_ arguments: [String]) throws(LaunchError) -> BatchIdentifyOptions {
        var options = BatchIdentifyOptions()
        var out: String?
        var words = ArgumentWords(arguments, context: "identify: ", dashIsPath: true, usage: usage)
        while let word = try words.next() {
            guard case .option(let name, let joined) = word else {
                if case .path(let path) = word { options.paths.append(path) }
                continue
            }
            guard ["out", "model-dir", "min-confidence", "overlap", "shard", "jobs"].contains(name) else {
                throw LaunchError("identify: unknown option '--\(name)'; usage: \(usage)")
            }
            let value = try words.value(joined: joined, for: "--\(name)")
            switch name {
            case "out": out = value
            case "model-dir": options.modelDirectory = value
            case "min-confidence":
                guard let number = Double(value), number.isFinite, (0...1).contains(number) else {
                    throw LaunchError("identify: --min-confidence is from 0 to 1, e.g. --min-confidence 0.5")
                }
                options.identify.minConfidence = number
            case "overlap":
                guard let number = Double(value), number.isFinite, number >= 0, number < 3 else {
                    throw LaunchError("identify: --overlap is in seconds, from 0 to under 3, e.g. --overlap 1.5")
                }
                options.identify.overlap = number
            case "shard": options.shard = try shard(value)
            default:
                guard let number = Int(value), (1...256).contains(number) else {
                    throw LaunchError("identify: --jobs takes a whole number of files at once, e.g. --jobs 2")
                }
                options.jobs = number
            }
        }
        guard !options.paths.isEmpty else {
            throw LaunchError("identify: name the files or folders to identify; usage: \(usage)")
        }
        guard let out, !out.isEmpty else {
            throw LaunchError("identify: --out DIR says where the selection tables go; usage: \(usage)")
        }
        options.out = out
        return options
    }

    /// `K/N`: K from 1 to N.
    private static func shard(_ text: String) throws(LaunchError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
            (1...count).contains(index)
        else {
            throw LaunchError(
                "identify: --shard takes K/N, this run's share K (from 1) of N runs, e.g. --shard 2/8 (not '\(text)')")
        }
        return Shard(index: index, count: count)
    }
}
