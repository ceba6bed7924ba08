import FoundationEssentials

/// A deck to learn: the species of a query (or of the recordings kept), each with its playable recordings.
public struct QuizDeck: Sendable, Hashable {
    /// One species of the deck.
    public struct Species: Sendable, Hashable {
        /// "Genus species", the key of its cards.
        public var scientificName: String
        public var englishName: String
        public var genus: String
        public var recordings: [Recording]
    }

    /// The deck's name in the store: the query as typed, `saved` or `cached`.
    public var name: String
    /// The family every species belongs to, when the query named one (`fam:`).
    public var family: String?
    /// In the order of their scientific names.
    public var species: [Species]

    public var recordingCount: Int { species.reduce(0) { $0 + $1.recordings.count } }

    /// Why a deck cannot be made, as the line to show.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// No recordings at all, for the deck named.
        case empty(String)
        case onlyRestricted(Int)
        case oneSpecies(String)

        public var description: String {
            switch self {
            case .empty("saved"):
                return "no saved recordings to quiz on: save some first (save 3-7), or quiz a query"
            case .empty("cached"):
                return "no cached recordings to quiz on: play some first, or quiz a query"
            case .empty:
                return "no recordings for that deck: try a wider query, e.g. quiz cnt:spain grp:birds q:A"
            case .onlyRestricted(let count):
                return "all \(count) recordings are restricted or have no audio: choose another query"
            case .oneSpecies(let name):
                return "the deck has one species (\(name)): a quiz needs two or more; widen the query"
            }
        }
    }

    /// The deck of `recordings`: restricted rows, rows without audio and rows without a species are left out.
    public static func make(name: String, family: String?, recordings: [Recording]) -> Result<QuizDeck, Refusal> {
        guard !recordings.isEmpty else { return .failure(.empty(name)) }
        var found: [String: Species] = [:]
        for recording in recordings where recording.playItem != nil {
            guard !recording.genus.isEmpty, !recording.species.isEmpty else { continue }
            let key = Self.key(genus: recording.genus, species: recording.species)
            if found[key] == nil {
                found[key] = Species(
                    scientificName: key, englishName: recording.englishName,
                    genus: String(key.prefix(while: { $0 != " " })),
                    recordings: [])
            }
            found[key]?.recordings.append(recording)
        }
        guard !found.isEmpty else { return .failure(.onlyRestricted(recordings.count)) }
        let species = found.values.sorted { $0.scientificName < $1.scientificName }
        guard species.count >= 2 else { return .failure(.oneSpecies(species[0].englishName)) }
        return .success(QuizDeck(name: name, family: family, species: species))
    }

    /// "Genus species", capitalised as binomials are.
    static func key(genus: String, species: String) -> String {
        let genus = genus.trimmingSpaces.lowercased()
        return (genus.prefix(1).uppercased() + genus.dropFirst()) + " "
            + species.trimmingSpaces.lowercased()
    }

    public func species(named scientificName: String) -> Species? {
        species.first { $0.scientificName == scientificName }
    }

    /// The cards: each species with each sound type it has (song, call, other), in a stable order.
    public var cards: [QuizCard] {
        species.flatMap { entry in
            Set(entry.recordings.map { QuizCard.Sound($0.soundType) }).sorted().map {
                QuizCard(species: entry.scientificName, sound: $0)
            }
        }
    }

    /// The recordings of `card`.
    public func recordings(of card: QuizCard) -> [Recording] {
        species(named: card.species)?.recordings.filter { QuizCard.Sound($0.soundType) == card.sound } ?? []
    }

    /// Up to `count` other species to offer beside `answer`: first of its genus, then of its family (when the
    /// deck is one family), then those this learner confused with it most, then any, each group shuffled.
    public func distractors<R: RandomNumberGenerator>(
        for answer: String, count: Int, confusions: [String: Int], using random: inout R
    ) -> [Species] {
        guard let truth = species(named: answer) else { return [] }
        var others = species.filter { $0.scientificName != answer }
        others.shuffle(using: &random)
        let genus = others.filter { $0.genus == truth.genus }
        let family = family == nil ? [] : others.filter { $0.genus != truth.genus }
        let confused = others.filter { (confusions[$0.scientificName] ?? 0) > 0 }
            .sorted { (confusions[$0.scientificName] ?? 0) > (confusions[$1.scientificName] ?? 0) }
        var chosen: [Species] = []
        for candidate in genus + family + confused + others where chosen.count < count {
            if !chosen.contains(candidate) { chosen.append(candidate) }
        }
        return chosen
    }
}

/// What is learnt and scheduled: a species and one of its sound types.
public struct QuizCard: Sendable, Hashable, Comparable {
    public enum Sound: String, Sendable, Hashable, Comparable {
        case song
        case call
        case other

        /// From xeno-canto's `type` field ("song", "call, flight call", "alarm call", "drumming").
        public init(_ type: String) {
            let lower = type.lowercased()
            if lower.contains("song") {
                self = .song
            } else if lower.contains("call") {
                self = .call
            } else {
                self = .other
            }
        }

        public static func < (lhs: Sound, rhs: Sound) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var species: String
    public var sound: Sound

    public init(species: String, sound: Sound) {
        self.species = species
        self.sound = sound
    }

    public static func < (lhs: QuizCard, rhs: QuizCard) -> Bool {
        (lhs.species, lhs.sound) < (rhs.species, rhs.sound)
    }
}

/// A small seeded generator (SplitMix64), so that `--seed N` replays a quiz exactly.
public struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
