import FoundationEssentials

/// What the store knows of a deck when a quiz starts.
public struct QuizProgress: Sendable, Hashable {
    public var memories: [QuizCard: CardMemory]
    /// For each species, the species answered in its place and how often (over all sessions).
    public var confusions: [String: [String: Int]]

    public init(memories: [QuizCard: CardMemory] = [:], confusions: [String: [String: Int]] = [:]) {
        self.memories = memories
        self.confusions = confusions
    }
}

/// One answer, as the store keeps it.
public struct QuizAnswerRecord: Sendable, Hashable {
    public var deck: String
    public var card: QuizCard
    /// The recording heard (its label, e.g. `XC254462`).
    public var recording: String
    /// The species answered (nil: skipped).
    public var answered: String?
    public var right: Bool { answered == card.species }
    /// The card's memory before this answer (nil: its first).
    public var previous: CardMemory?

    public init(deck: String, card: QuizCard, recording: String, answered: String?, previous: CardMemory?) {
        self.deck = deck
        self.card = card
        self.recording = recording
        self.answered = answered
        self.previous = previous
    }

    /// The card's memory after this answer at `now`.
    public func memory(at now: Date) -> CardMemory {
        SpacedRepetition.review(previous, grade: right ? .good : .again, at: now)
    }
}

/// `quiz stats`: the learner's progress over every session.
public struct QuizStats: Sendable, Hashable {
    public struct SpeciesLine: Sendable, Hashable {
        public var deck: String
        public var species: String
        public var englishName: String
        public var answered: Int
        public var right: Int
        /// When its earliest card is due (nil: never answered).
        public var due: Date?

        public init(deck: String, species: String, englishName: String, answered: Int, right: Int, due: Date?) {
            self.deck = deck
            self.species = species
            self.englishName = englishName
            self.answered = answered
            self.right = right
            self.due = due
        }
    }

    public struct Confusion: Sendable, Hashable {
        public var deck: String
        public var species: String
        public var answered: String
        public var times: Int

        public init(deck: String, species: String, answered: String, times: Int) {
            self.deck = deck
            self.species = species
            self.answered = answered
            self.times = times
        }
    }

    public var answered: Int
    public var right: Int
    /// Cards due at `now`.
    public var due: Int
    public var now: Date
    public var species: [SpeciesLine]
    /// The most confused pairs first.
    public var confusions: [Confusion]

    public init(answered: Int, right: Int, due: Int, now: Date, species: [SpeciesLine], confusions: [Confusion]) {
        self.answered = answered
        self.right = right
        self.due = due
        self.now = now
        self.species = species
        self.confusions = confusions
    }
}
