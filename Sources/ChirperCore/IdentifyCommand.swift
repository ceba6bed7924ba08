/// `identify [n|sK] [a-b] [--min-confidence C] [--overlap S] [--species-list FILE] [--all]`: who is singing in a
/// row, a measured selection, or what plays; `identify on|off`: in the segment that plays, while it plays.
public struct IdentifyRequest: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        /// What plays: its loop's section when one is set, else the whole recording.
        case playing
        /// Row n's recording, whole or over a section.
        case row(Int, TimeSpan?)
        /// Row K of the session's selection table.
        case selection(Int)
        /// `identify save FILE`: the last identification shown, as BirdNET-Analyzer's selection table.
        case save(path: String)
        /// `identify on` / `identify off`: while playing, the species heard in the segment that plays.
        case live(Bool)
    }

    public var target: Target
    public var options: IdentifyOptions

    public init(target: Target, options: IdentifyOptions = IdentifyOptions()) {
        self.target = target
        self.options = options
    }

    public static let usage =
        "identify [n|sK] [a-b] [--min-confidence 0-1] [--overlap 0-2.9] [--species-list FILE] [--all]"
        + " | identify save FILE | identify on|off"

    public static func parse(_ rest: String) throws(CommandError) -> IdentifyRequest {
        var words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.first?.lowercased() == "save" {
            guard words.count == 2 else {
                throw CommandError(
                    "identify save needs one file name, e.g. identify save dawn.BirdNET.selection.table.txt")
            }
            return IdentifyRequest(target: .save(path: words[1]))
        }
        var options = IdentifyOptions()
        while let flag = words.firstIndex(where: { $0.hasPrefix("--") }) {
            let name = words[flag].lowercased()
            if name == "--all" {
                options.all = true
                words.remove(at: flag)
                continue
            }
            if name == "--species-list" {
                guard flag + 1 < words.count, !words[flag + 1].hasPrefix("--") else {
                    throw CommandError("--species-list needs a file, e.g. --species-list my-patch.txt")
                }
                options.speciesList = words[flag + 1]
                words.removeSubrange(flag...(flag + 1))
                continue
            }
            guard flag + 1 < words.count, let value = Double(words[flag + 1]), value.isFinite else {
                guard ["--min-confidence", "--overlap"].contains(name) else {
                    throw CommandError("identify has no \(SonogramRequest.shown(name)); usage: \(usage)")
                }
                throw CommandError("\(SonogramRequest.shown(name)) needs a number; usage: \(usage)")
            }
            switch name {
            case "--min-confidence":
                guard (0...1).contains(value) else {
                    throw CommandError("--min-confidence is from 0 to 1, e.g. --min-confidence 0.5")
                }
                options.minConfidence = value
            case "--overlap":
                guard value >= 0, value < 3 else {
                    throw CommandError(
                        "--overlap is in seconds, from 0 to under 3 (a segment is 3 s), e.g. --overlap 1.5")
                }
                options.overlap = value
            default:
                throw CommandError("identify has no \(SonogramRequest.shown(name)); usage: \(usage)")
            }
            words.removeSubrange(flag...(flag + 1))
        }
        guard let first = words.first else { return IdentifyRequest(target: .playing, options: options) }
        if let live = try liveTarget(words, options: options) { return IdentifyRequest(target: live, options: options) }
        guard words.count <= 2 else {
            throw CommandError("identify takes a row and a section at most; usage: \(usage)")
        }
        let lowered = first.lowercased()
        if lowered.hasPrefix("s"), let number = Int(lowered.dropFirst()), number >= 1 {
            guard words.count == 1 else {
                throw CommandError(
                    "a selection has its own section: identify \(lowered) takes no other; usage: \(usage)")
            }
            return IdentifyRequest(target: .selection(number), options: options)
        }
        let digits = first.hasPrefix("#") ? String(first.dropFirst()) : first
        guard digits.count <= 9, let row = Int(digits), row >= 1 else {
            throw CommandError("'\(SonogramRequest.shown(first))' is not a row or a selection (s1); usage: \(usage)")
        }
        let span = words.count == 2 ? try SonogramRequest.window(words[1]) : nil
        return IdentifyRequest(target: .row(row, span), options: options)
    }

    /// `identify on` (whose only flag is the minimum confidence) or `identify off`; nil for anything else.
    private static func liveTarget(_ words: [String], options: IdentifyOptions) throws(CommandError) -> Target? {
        let first = words[0].lowercased()
        guard first == "on" || first == "off" else { return nil }
        guard words.count == 1 else { throw CommandError("identify \(first) takes nothing after it; usage: \(usage)") }
        if first == "off" && options != IdentifyOptions() {
            throw CommandError("identify off takes no flags: it stops identify on")
        }
        guard options.overlap == 0 else {
            throw CommandError(
                "identify on hears what plays in 3 s segments one after the other: --overlap is for identify n")
        }
        guard options == IdentifyOptions(minConfidence: options.minConfidence) else {
            throw CommandError(
                "identify on shows all it hears, not judged by place: --species-list and --all are for identify n")
        }
        return .live(first == "on")
    }
}
