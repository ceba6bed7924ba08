/// Tab completion at the prompt: command names, then search tags and their common values.
public enum Completion {
    static let tagValues: [String: [String]] = [
        "grp": ["birds", "grasshoppers", "bats", "frogs", "\"land mammals\"", "soundscape"],
        "type": [
            "song", "call", "\"alarm call\"", "\"flight call\"", "\"begging call\"", "drumming", "duet",
            "\"dawn song\"", "\"nocturnal flight call\"", "\"calling song\"", "subsong", "echolocation",
        ],
        "q": ["A", "B", "C", "D", "E", "\">C\"", "\"<C\""],
        "area": ["africa", "america", "asia", "australia", "europe"],
        "sex": ["male", "female"],
        "stage": ["adult", "juvenile", "nestling", "nymph", "subadult"],
        "seen": ["yes", "no"],
        "playback": ["yes", "no"],
        "auto": ["yes", "no"],
        "method": ["\"field recording\"", "\"in the hand\"", "\"studio recording\""],
    ]

    /// Candidates that replace the word before the cursor, given the line up to the cursor.
    public static func candidates(lineBeforeCursor line: String) -> [String] {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        let endsInSpace = line.last == " " || line.isEmpty
        let current = endsInSpace ? "" : String(words.last ?? "")
        let position = endsInSpace ? words.count : words.count - 1
        if position == 0 {
            return CommandParser.commandNames.filter { $0.hasPrefix(current.lowercased()) }
        }
        let command = words[0].lowercased()
        switch command {
        case "search", "s", "/":
            if let colon = current.firstIndex(of: ":") {
                let tag = current[..<colon].lowercased()
                let typed = current[current.index(after: colon)...].lowercased()
                return (tagValues[tag] ?? []).filter { $0.lowercased().hasPrefix(typed) }.map { "\(tag):\($0)" }
            }
            return SearchQuery.knownTags.filter { $0.hasPrefix(current.lowercased()) }.map { $0 + ":" }
        case "help", "?", "h":
            return (CommandParser.commandNames + ["tags"]).filter { $0.hasPrefix(current.lowercased()) }
        case "speed" where position == 1:
            return ["0.1", "0.25", "0.5", "1", "2"].filter { $0.hasPrefix(current) }
        case "speed" where position == 2:
            return PlaybackSpeed.Mode.allCases.map(\.rawValue).filter { $0.hasPrefix(current.lowercased()) }
        case "autoplay" where position == 1:
            return ["on", "off"].filter { $0.hasPrefix(current.lowercased()) }
        case "play" where position == 1, "p" where position == 1, "save" where position == 1:
            return ["all"].filter { $0.hasPrefix(current.lowercased()) && !current.isEmpty }
        case "sono" where position == 1:
            return ["on", "off"].filter { $0.hasPrefix(current.lowercased()) }
        case "graphics" where position == 1:
            return GraphicsMode.allCases.map(\.rawValue).filter { $0.hasPrefix(current.lowercased()) }
        case "loop" where position == 1:
            return ["off", "ann"].filter { $0.hasPrefix(current.lowercased()) }
        case "volume", "vol":
            return position == 1 ? ["0", "25", "50", "75", "100"].filter { $0.hasPrefix(current) } : []
        default:
            return []
        }
    }
}
