import FoundationEssentials

/// `also <n> [k]`: the search for a background species of a recording (v3's `also` array, kept as
/// ``Recording/background``). xeno-canto cannot OR species in one query, so a recording with several
/// background species asks which one; names that are not a binomial ("Identity unknown", a family) are refused
/// with a line saying so.
public enum BackgroundSearch {
    /// Why no query could be made; `description` is the one line to print (API text sanitised).
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case none(label: String)
        /// Several: the one line lists them, numbered, and says how to choose for row `row`.
        case choose(label: String, row: Int, names: [String])
        case outOfRange(label: String, row: Int, choice: Int, count: Int)
        case notASpecies(label: String, name: String)

        public var description: String {
            switch self {
            case .none(let label):
                return "\(label) lists no background species"
            case .choose(let label, let row, let names):
                let numbered = names.enumerated().map { "\($0.offset + 1) \(TerminalText.sanitize($0.element))" }
                return "\(label) has \(names.count) background species (\(numbered.joined(separator: ", "))); "
                    + "choose one: also \(row) <k>, e.g. also \(row) 1"
            case .outOfRange(let label, let row, let choice, let count) where count == 1:
                return "\(label) has 1 background species, not \(choice); type also \(row)"
            case .outOfRange(let label, let row, let choice, let count):
                return
                    "\(label) has \(count) background species, not \(choice); choose one of 1-\(count): also \(row) <k>"
            case .notASpecies(let label, let name):
                return "background '\(TerminalText.sanitize(name))' of \(label) is not a species name to search for"
            }
        }
    }

    /// The query for background species `choice` (1-based; nil when there is only one) of `recording`, listed
    /// as row `row` (the refusals name the command to type).
    public static func query(for recording: Recording, row: Int, choice: Int? = nil) -> Result<SearchQuery, Refusal> {
        let label = TerminalText.sanitize(recording.label)
        let names = recording.background.map { $0.trimmingSpaces }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return .failure(.none(label: label)) }
        let index: Int
        if let choice {
            guard (1...names.count).contains(choice) else {
                return .failure(.outOfRange(label: label, row: row, choice: choice, count: names.count))
            }
            index = choice - 1
        } else {
            guard names.count == 1 else { return .failure(.choose(label: label, row: row, names: names)) }
            index = 0
        }
        let name = names[index]
        let words = name.split(separator: " ")
        // A binomial (or trinomial) of letters only: anything else ("Identity unknown", "sp.", punctuation) is
        // not something `sp:` can find.
        let isName =
            (2...3).contains(words.count)
            && words.allSatisfy { word in word.allSatisfy { $0.isLetter || $0 == "-" } }
            && words.dropFirst().allSatisfy { $0 == $0.lowercased() } && words[0].first?.isUppercase == true
        let placeholders: Set<String> = ["identity", "mystery", "sonotype", "unknown"]
        guard isName, words[1] != "sp", !placeholders.contains(words[0].lowercased()) else {
            return .failure(.notASpecies(label: label, name: name))
        }
        let binomial = words.prefix(2).joined(separator: " ").lowercased()
        return .success(SearchQuery(terms: [SearchQuery.Term(tag: "sp", value: binomial)]))
    }
}
