import FoundationEssentials

/// One line typed at the prompt, understood.
public enum Command: Sendable, Hashable {
    case search(SearchQuery)
    /// `open PATH…`: list these files, and the audio files in these folders and below.
    case open([String])
    case nextPage
    case list
    case play(row: Int)
    /// `play 3-7`, `play 2,5`, `play all`: queue the rows named (``RowSelection``, resolved against the list).
    case playRows(String)
    /// The queue's next and previous items.
    case next
    case prev
    /// Whether the queue starts the next item when one ends.
    case autoplay(Bool)
    /// `save 3`, `save 3-7`, `save all`, optionally into a folder.
    case save(rows: String, directory: String?)
    /// The attribution xeno-canto asks for.
    case cite(row: Int)
    /// Search the background species of a row (`choice` picks one of several).
    case also(row: Int, choice: Int?)
    case stop
    case pause
    case resume
    case info(row: Int)
    /// Jump to a time in the playing recording.
    case seek(TimeInput)
    /// Repeat a section of the playing recording, `from` to `to`.
    case loop(from: TimeInput, to: TimeInput)
    case loopOff
    /// `loop ann <k>`: repeat annotation box k of the playing recording.
    case loopAnnotation(Int)
    /// `speed <factor> [tape|keep]`; nil: `speed` alone, which says the speed in force.
    case speed(PlaybackSpeed?)
    /// 0…100.
    case volume(Int)
    /// `channel [k]`: play channel k (from 1) of what plays, a file of more than two channels; alone, say which.
    case channel(Int?)
    case mute
    case unmute
    /// Draw a row's sonogram, or turn the live strip on or off.
    case sono(SonogramRequest)
    case wait
    /// `select …`: the selection to measure.
    case select(SelectRequest)
    /// `measure …`: Raven's measurements of a selection, and the session's table.
    case measure(MeasureRequest)
    /// `compare <a> <b> [more]`: sonograms stacked on one time and frequency axis and one dB scale, and the
    /// measurements side by side.
    case compare([CompareItem])
    /// `ab <a> <b> [gap]`: two sections heard in turn until `stop`.
    case ab(ABRequest)
    /// `identify …`: the species a classifier hears, segment by segment.
    case identify(IdentifyRequest)
    /// `graphics [auto|kitty|sixel|blocks]`: how `sono` draws (nil: say what it is now).
    case graphics(GraphicsMode?)
    /// `quiz …`: learn the sounds of a deck.
    case quiz(QuizRequest)
    /// The open question's answer: a choice's number or a name (a bare number or name typed while a question
    /// is open is one too).
    case answer(String)
    /// Hear the open question's recording again from where it began.
    case replay
    /// Give up the open question: it is answered wrong and shown.
    case skip
    case help(topic: String?)
    case quit
    /// An empty line: nothing to do.
    case nothing
}

/// Why a line is not a command, as one line that says what to type instead.
public struct CommandError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case unreadable
        /// `search` with nothing to search for: the session names a search its source answers.
        case searchWithoutWords
    }

    public var kind: Kind
    public var description: String
    public init(_ description: String, kind: Kind = .unreadable) {
        self.description = description
        self.kind = kind
    }
}

/// Parses command lines. Pure: the REPL decides what each command means in the current state.
public enum CommandParser {
    /// The commands, with the short forms users type.
    public static let commands: [(name: String, aliases: [String], usage: String, summary: String)] = [
        ("search", ["s", "/"], "search <query>", "search recordings: words, or tags like en:wren cnt:spain q:A"),
        ("open", ["o"], "open <path>…", "list your own audio files, and those in folders (and below), to play"),
        ("filter", [], "filter <query>", "narrow the opened files: words match the path; year: len: dvc: …"),
        ("next-page", ["n"], "next-page", "append the next page of results"),
        ("list", ["ls", "l"], "list", "show the rows loaded so far"),
        ("play", ["p"], "play <n> | 3-7 | all", "play row n (stops what is playing), or queue rows and play them"),
        ("next", [], "next", "play the queue's next row; after a quiz answer, the next question (Enter too)"),
        ("prev", ["previous"], "prev", "play the queue's previous row"),
        ("autoplay", [], "autoplay on|off", "whether the queue plays on by itself when a row ends (default on)"),
        ("stop", [], "stop", "stop playback"),
        ("pause", [], "pause", "pause playback"),
        ("resume", ["continue"], "resume", "resume paused playback"),
        ("info", ["i"], "info <n>", "everything about row n, with its licence and URL"),
        ("cite", [], "cite <n>", "row n's attribution as xeno-canto asks for it, with licence warnings"),
        ("also", [], "also <n> [k]", "search the background species of row n (k picks one of several)"),
        ("save", [], "save <n>|3-7|all [DIR]", "download rows' original audio and metadata (resumable)"),
        ("seek", ["jump"], "seek <m:ss>|+N|-N", "jump to a time in the recording, or N seconds on or back"),
        (
            "loop", [], "loop <a> <b> | loop ann <k> | loop off",
            "repeat the section a to b (times as in seek), or annotation box k, until loop off"
        ),
        (
            "speed", [], "speed [0.1-2.0] [tape|keep]",
            "slow down or speed up: tape moves the pitch, keep keeps it; alone, the speed in force"
        ),
        ("volume", ["vol"], "volume <0-100>", "set the volume (50 halves the amplitude); also unmutes"),
        (
            "channel", ["ch"], "channel [k]",
            "play channel k of a file of 3 to 8 channels, from where it is; alone, which one plays"
        ),
        ("mute", [], "mute", "silence the sound, keeping the volume"),
        ("unmute", [], "unmute", "hear it again at the volume set"),
        (
            "sono", [], "sono [n] [band] [a-b] [--png F] | on|off",
            "a sonogram (time × frequency; zoom to a band and a window), or the live strip"
        ),
        ("select", [], "select [n a-b [band] | clear]", "choose a time section and band to measure"),
        (
            "measure", [], "measure [n a-b [band]] | list | save F",
            "Raven's measurements of a selection, or of each species identify heard (measure detections);"
                + " the session's table, saved for Raven"
        ),
        ("compare", [], "compare <a> <b> [more]", "rows or selections (s1) stacked, measured side by side"),
        ("ab", [], "ab <a> <b> [gap-s]", "hear two rows or selections in turn, A B A B …, until stop"),
        (
            "identify", [], "identify [n|sK] [a-b] [--min-confidence C]",
            "who is singing, per 3 s segment and per species (BirdNET; make model); identify save F: for Raven;"
                + " identify on|off: who sings now, in the status line"
        ),
        ("graphics", [], "graphics [auto|kitty|sixel|blocks]", "how sono draws: terminal pixels or half-blocks"),
        (
            "quiz", [], "quiz <deck> | stop | stats | export F",
            "learn the sounds: a deck is a query, saved or cached; spaced repetition"
        ),
        ("answer", [], "answer <n>|<name>", "answer the quiz's question (a number or name alone works too)"),
        ("replay", [], "replay", "hear the quiz question's recording again (after the answer, under its name)"),
        ("slow", [], "slow", "half speed with the pitch kept (speed 0.5 keep); speed 1 goes back"),
        ("skip", [], "skip", "give up the quiz question: it is shown and counts as missed"),
        ("wait", [], "wait", "wait until playback ends or fails (for scripts)"),
        ("help", ["?", "h"], "help [command|tags]", "this help, a command's help, or the search tags"),
        ("quit", ["exit", "q"], "quit", "leave (Ctrl-D too)"),
    ]

    public static var commandNames: [String] { commands.map(\.name) }

    /// Paths as typed after `open`: separated by spaces, a path with spaces in double quotes.
    static func paths(_ text: String) throws(CommandError) -> [String] {
        var paths: [String] = []
        var current = ""
        var quoted = false
        var started = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if character.isWhitespace && !quoted {
                if started { paths.append(current) }
                (current, started) = ("", false)
            } else {
                current.append(character)
                started = true
            }
        }
        guard !quoted else { throw CommandError("a quote is not closed; write a path with spaces as \"my folder\"") }
        if started { paths.append(current) }
        return paths.filter { !$0.isEmpty }
    }

    public static func parse(_ line: String) throws(CommandError) -> Command {
        let trimmed = line.trimmingSpaces
        guard !trimmed.isEmpty else { return .nothing }
        let name: Substring
        let rest: String
        if let space = trimmed.firstIndex(where: \.isWhitespace) {
            name = trimmed[..<space]
            rest = trimmed[space...].trimmingSpaces
        } else {
            name = Substring(trimmed)
            rest = ""
        }
        guard
            let command = commands.first(where: {
                $0.name == name.lowercased() || $0.aliases.contains(name.lowercased())
            })
        else {
            let shown = TerminalText.sanitize(String(name.prefix(40)))
            if let guess = suggestion(for: name.lowercased()) {
                throw CommandError("unknown command '\(shown)'; did you mean '\(guess)'? (help lists commands)")
            }
            throw CommandError("unknown command '\(shown)'; type help for the commands")
        }
        switch command.name {
        case "search":
            do {
                return .search(try SearchQuery.parse(rest))
            } catch {
                throw CommandError(
                    TerminalText.sanitize(error.description), kind: error == .empty ? .searchWithoutWords : .unreadable)
            }
        case "open":
            let paths = try Self.paths(rest)
            guard !paths.isEmpty else {
                throw CommandError("open needs files or folders, e.g. open ~/recordings (quote a path with spaces)")
            }
            return .open(paths)
        case "filter":
            do {
                var query = try SearchQuery.parse(rest)
                query.scope = .files
                return .search(query)
            } catch {
                guard error != .empty else {
                    throw CommandError(
                        "filter needs words or tags, e.g. filter 2025 or filter len:>60 (list shows them all)")
                }
                throw CommandError(TerminalText.sanitize(error.description))
            }
        case "play":
            if !rest.isEmpty, !rest.hasPrefix("-"),
                rest.lowercased() == "all" || rest.contains(where: { $0 == "-" || $0 == "," })
            {
                try checkSelection(rest, for: "play")
                return .playRows(rest)
            }
            return .play(row: try row(rest, for: "play"))
        case "cite":
            return .cite(row: try row(rest, for: "cite"))
        case "also":
            let words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
            guard (1...2).contains(words.count) else {
                throw CommandError(
                    "also needs a row number, e.g. also 3 (or also 3 2 for its second background species)")
            }
            let choice = try words.count == 2 ? row(words[1], for: "also <n>") : nil
            return .also(row: try row(words[0], for: "also"), choice: choice)
        case "save":
            let words = rest.split(maxSplits: 1, whereSeparator: \.isWhitespace).map(String.init)
            guard let rows = words.first else {
                throw CommandError("save needs rows, e.g. save 3, save 3-7 or save all (and a folder if you like)")
            }
            try checkSelection(rows, for: "save")
            let folder = words.count == 2 ? words[1].trimmingSpaces : nil
            return .save(rows: rows, directory: folder)
        case "autoplay":
            switch rest.lowercased() {
            case "on": return .autoplay(true)
            case "off": return .autoplay(false)
            default: throw CommandError("autoplay takes on or off, e.g. autoplay off")
            }
        case "info":
            return .info(row: try row(rest, for: "info"))
        case "sono":
            return .sono(try SonogramRequest.parse(rest))
        case "seek":
            guard !rest.isEmpty else {
                throw CommandError("seek needs a time: seek 1:05, seek 30 (seconds), seek +10 or seek -5")
            }
            return .seek(try time(rest))
        case "loop":
            let words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
            if words.count == 1, words[0].lowercased() == "off" { return .loopOff }
            if words.first?.lowercased() == "ann" {
                guard words.count == 2 else {
                    throw CommandError("loop ann needs a box number, e.g. loop ann 1 (info lists them)")
                }
                return .loopAnnotation(try row(words[1], for: "loop ann"))
            }
            guard words.count == 2 else {
                throw CommandError("loop takes two times, e.g. loop 0:12 0:15, or loop off")
            }
            return .loop(from: try time(words[0]), to: try time(words[1]))
        case "speed":
            let words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
            if words.isEmpty { return .speed(nil) }
            switch PlaybackSpeed.parse(words) {
            case .success(let speed): return .speed(speed)
            case .failure(let error): throw CommandError(error.message)
            }
        case "channel", "ch":
            guard !rest.isEmpty else { return .channel(nil) }
            guard rest.count <= 2, let channel = Int(rest), (1...8).contains(channel) else {
                let shown = TerminalText.sanitize(String(rest.prefix(20)))
                throw CommandError("'\(shown)' is not a channel: give its number from 1 to 8, e.g. channel 2")
            }
            return .channel(channel)
        case "volume":
            let digits = rest.hasSuffix("%") ? String(rest.dropLast()) : rest
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCIIDigitCharacter),
                let percent = Int(digits), percent <= 100
            else {
                if rest.isEmpty { throw CommandError("volume needs a number from 0 to 100, e.g. volume 50") }
                let shown = TerminalText.sanitize(String(rest.prefix(20)))
                throw CommandError("'\(shown)' is not a volume: give a whole number from 0 to 100, e.g. volume 50")
            }
            return .volume(percent)
        case "help":
            return .help(topic: rest.isEmpty ? nil : rest.lowercased())
        case "select":
            return .select(try SelectRequest.parse(rest))
        case "measure":
            return .measure(try MeasureRequest.parse(rest))
        case "compare":
            return .compare(try CompareItem.parse(rest))
        case "ab":
            return .ab(try ABRequest.parse(rest))
        case "identify":
            return .identify(try IdentifyRequest.parse(rest))
        case "quiz":
            return .quiz(try QuizRequest.parse(rest))
        case "answer":
            guard !rest.isEmpty else { throw CommandError("answer needs a choice's number or a name, e.g. answer 2") }
            return .answer(rest)
        case "graphics":
            guard !rest.isEmpty else { return .graphics(nil) }
            guard let mode = GraphicsMode(rawValue: rest.lowercased()) else {
                throw CommandError("graphics takes auto, kitty, sixel or blocks; usage: \(command.usage)")
            }
            return .graphics(mode)
        default:
            guard rest.isEmpty else {
                throw CommandError("\(command.name) takes no arguments; usage: \(command.usage)")
            }
            switch command.name {
            case "next-page": return .nextPage
            case "next": return .next
            case "prev": return .prev
            case "list": return .list
            case "stop": return .stop
            case "pause": return .pause
            case "resume": return .resume
            case "wait": return .wait
            case "mute": return .mute
            case "unmute": return .unmute
            case "replay": return .replay
            case "slow":
                guard case .success(let speed) = PlaybackSpeed.parse(["0.5", "keep"]) else { return .nothing }
                return .speed(speed)
            case "skip": return .skip
            default: return .quit
            }
        }
    }

    private static func time(_ text: String) throws(CommandError) -> TimeInput {
        switch TimeInput.parse(text) {
        case .success(let time): return time
        case .failure(let error): throw CommandError(TerminalText.sanitize(error.message))
        }
    }

    /// Checks the form of a row selection (the rows themselves are checked against the list later).
    private static func checkSelection(_ text: String, for name: String) throws(CommandError) {
        guard text.lowercased() != "all" else { return }
        do {
            _ = try RowSelection.parse(text, count: 999_999)
        } catch {
            throw CommandError("\(error.description); usage: \(name) 3, \(name) 3-7 or \(name) all")
        }
    }

    private static func row(_ text: String, for name: String) throws(CommandError) -> Int {
        guard !text.isEmpty else {
            throw CommandError("\(name) needs a row number, e.g. \(name) 1 (list shows the rows)")
        }
        let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard digits.count <= 9, let number = Int(digits), number >= 1 else {
            throw CommandError(
                "'\(TerminalText.sanitize(String(text.prefix(20))))' is not a row number; usage: \(name) <n>")
        }
        return number
    }
}

extension Character {
    /// 0-9 only (not other scripts' digits).
    var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}
