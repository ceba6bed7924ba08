/// What a typed answer names: a choice's number, or a species by its English or scientific name, matched
/// forgivingly (case, accents, hyphens and a typo or two do not matter).
public enum QuizAnswer {
    public enum Match: Sendable, Hashable {
        /// The species (its scientific name).
        case species(String)
        /// Not one of the choices' numbers.
        case outOfRange(Int, choices: Int)
        /// No species of the deck is close: the closest names, to offer.
        case unknown(closest: [String])
    }

    /// Matches `text` against `choices` (numbered from 1; empty in typed mode) and the deck's species.
    public static func match(_ text: String, choices: [QuizDeck.Species], deck: QuizDeck) -> Match {
        let trimmed = text.trimmingSpaces
        if let number = Int(trimmed), !choices.isEmpty {
            guard (1...choices.count).contains(number) else { return .outOfRange(number, choices: choices.count) }
            return .species(choices[number - 1].scientificName)
        }
        let typed = normalize(trimmed)
        let pool = choices.isEmpty ? deck.species : choices
        var best: [(distance: Int, species: QuizDeck.Species)] = []
        for species in deck.species {
            let names = [normalize(species.englishName), normalize(species.scientificName)]
            if names.contains(typed) { return .species(species.scientificName) }
            let distance = names.map { editDistance(typed, $0) }.min() ?? .max
            best.append((distance, species))
        }
        best.sort { $0.distance < $1.distance }
        // A typo or two (one per five letters) still names the species, when no other is as close.
        if let first = best.first, first.distance <= max(1, typed.count / 5),
            best.dropFirst().first.map({ $0.distance > first.distance }) ?? true
        {
            return .species(first.species.scientificName)
        }
        let offered = best.filter { candidate in pool.contains { $0 == candidate.species } }.prefix(3)
        return .unknown(closest: offered.map { $0.species.englishName })
    }

    /// Lower case, no accents, letters and digits separated by single spaces.
    static func normalize(_ text: String) -> String {
        let folded = text.foldingCaseAndAccents
        let words = folded.split { !$0.isLetter && !$0.isNumber }
        return words.joined(separator: " ")
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
