import FoundationEssentials

/// Where a quiz's deck comes from.
public enum QuizOrigin: Sendable, Hashable {
    /// A xeno-canto search, over as many pages as the deck needs.
    case query(SearchQuery)
    /// The recordings `save` kept.
    case saved
    /// The recordings in the play cache.
    case cached

    /// The deck's name in the store.
    public var deckName: String {
        switch self {
        case .query(let query): return query.text
        case .saved: return "saved"
        case .cached: return "cached"
        }
    }

    /// The family the query names (`fam:`), which every species of its deck shares.
    public var family: String? {
        guard case .query(let query) = self else { return nil }
        return query.terms.first { $0.tag == "fam" }?.value
    }
}

/// How questions are asked.
public enum QuizMode: String, Sendable, Hashable, CaseIterable {
    /// Choose one of N names (default).
    case choice
    /// Type the name.
    case typed
    /// Pick which of three sonograms is the sound heard (as Cornell's Bird Song Hero).
    case sono
}

/// A quiz's settings from its flags.
public struct QuizSettings: Sendable, Hashable {
    public var mode: QuizMode = .choice
    /// Names offered in choice mode.
    public var choices = 4
    /// Questions in a session.
    public var questions = 20
    /// Makes the session reproducible: the same deck and answers give the same questions.
    public var seed: UInt64?
    /// The next question follows each answer at once (else it waits for `next`, and `replay` plays the answered
    /// recording under its name).
    public var auto = false

    public init(
        mode: QuizMode = .choice, choices: Int = 4, questions: Int = 20, seed: UInt64? = nil, auto: Bool = false
    ) {
        self.mode = mode
        self.choices = choices
        self.questions = questions
        self.seed = seed
        self.auto = auto
    }
}

/// `quiz …`.
public enum QuizRequest: Sendable, Hashable {
    case start(QuizOrigin, QuizSettings)
    case stop
    case stats
    /// Write every card with its recordings' references as CSV.
    case export(path: String)

    static let usage =
        "quiz <query> [--mode choice|typed|sono] [--choices N] [--questions N] [--seed N] [--auto], "
        + "quiz saved|cached, quiz stop, quiz stats, quiz export FILE.csv"

    public static func parse(_ text: String) throws(CommandError) -> QuizRequest {
        var words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first?.lowercased() else { throw CommandError("quiz needs a deck; usage: \(usage)") }
        switch first {
        case "stop" where words.count == 1: return .stop
        case "stats" where words.count == 1: return .stats
        case "export":
            guard words.count >= 2 else { throw CommandError("quiz export needs a file, e.g. quiz export cards.csv") }
            return .export(path: words.dropFirst().joined(separator: " "))
        default: break
        }
        var settings = QuizSettings()
        var rest: [String] = []
        while !words.isEmpty {
            let word = words.removeFirst()
            guard word.hasPrefix("--") else {
                rest.append(word)
                continue
            }
            if word == "--auto" {
                settings.auto = true
                continue
            }
            guard let value = words.first else { throw CommandError("\(word) needs a value; usage: \(usage)") }
            words.removeFirst()
            switch word {
            case "--mode":
                guard let mode = QuizMode(rawValue: value) else {
                    throw CommandError("--mode takes choice, typed or sono, e.g. quiz fam:sylviidae --mode typed")
                }
                settings.mode = mode
            case "--choices":
                guard let count = Int(value), (2...8).contains(count) else {
                    throw CommandError("--choices takes 2 to 8, e.g. --choices 4")
                }
                settings.choices = count
            case "--questions":
                guard let count = Int(value), (1...500).contains(count) else {
                    throw CommandError("--questions takes 1 to 500, e.g. --questions 20")
                }
                settings.questions = count
            case "--seed":
                guard let seed = UInt64(value) else {
                    throw CommandError("--seed takes a whole number, e.g. --seed 7")
                }
                settings.seed = seed
            default:
                throw CommandError("unknown quiz flag \(TerminalText.sanitize(word)); usage: \(usage)")
            }
        }
        let deck = rest.joined(separator: " ")
        switch deck.lowercased() {
        case "saved": return .start(.saved, settings)
        case "cached": return .start(.cached, settings)
        case "": throw CommandError("quiz needs a deck: a query (quiz fam:sylviidae), saved or cached")
        default:
            do {
                return .start(.query(try SearchQuery.parse(deck)), settings)
            } catch {
                throw CommandError(TerminalText.sanitize(error.description))
            }
        }
    }
}
