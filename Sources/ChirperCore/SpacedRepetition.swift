import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// What a learner remembers of one card (a species and sound type): FSRS's memory state and when to ask next.
public struct CardMemory: Sendable, Hashable {
    /// Days until the chance of recalling it falls to 90 %.
    public var stability: Double
    /// 1 (easy) … 10 (hard).
    public var difficulty: Double
    public var due: Date
    public var lastReview: Date
    public var reviews: Int
    public var lapses: Int

    public init(stability: Double, difficulty: Double, due: Date, lastReview: Date, reviews: Int, lapses: Int) {
        self.stability = stability
        self.difficulty = difficulty
        self.due = due
        self.lastReview = lastReview
        self.reviews = reviews
        self.lapses = lapses
    }
}

/// The scheduler: FSRS-4.5 (Jarrett Ye's Free Spaced Repetition Scheduler, Anki's default since 23.10) with its
/// published default weights, asking again when recall has fallen to 90 %.
///
/// Why FSRS rather than SM-2: SM-2 multiplies an interval by an "ease" that a few misses drive to its floor
/// for good ("ease hell"), and treats a card missed after a year like one missed after a day. FSRS models the
/// memory itself (stability, difficulty, retrievability), so a miss after a long gap costs less than one after
/// a short gap, and it needs only the grade and the time of each answer, which a quiz has. A quiz answer is
/// right or wrong: wrong is FSRS's Again, right is Good.
public enum SpacedRepetition {
    public enum Grade: Sendable, Hashable {
        case again
        case good

        var value: Double { self == .again ? 1 : 3 }
    }

    /// FSRS-4.5's default weights.
    static let w: [Double] = [
        0.4872, 1.4003, 3.7145, 13.8206, 5.1618, 1.2298, 0.8975, 0.031, 1.6474, 0.1367, 1.0461, 2.1072, 0.0793,
        0.3246, 1.587, 0.2272, 2.8755,
    ]
    static let decay = -0.5
    static let factor = 19.0 / 81.0
    /// A card missed comes back after this long (a relearning step), whatever its stability.
    public static let relearningStep: TimeInterval = 10 * 60
    static let day: TimeInterval = 86_400

    /// The chance of recalling a card `elapsed` days after its last review.
    public static func retrievability(elapsedDays: Double, stability: Double) -> Double {
        pow(1 + factor * elapsedDays / stability, decay)
    }

    /// The memory after answering `grade` at `now` (nil `memory`: the card's first answer).
    public static func review(_ memory: CardMemory?, grade: Grade, at now: Date) -> CardMemory {
        let stability: Double
        let difficulty: Double
        var lapses = memory?.lapses ?? 0
        if let memory {
            let elapsed = max(0, now.timeIntervalSince(memory.lastReview) / day)
            let recall = retrievability(elapsedDays: elapsed, stability: memory.stability)
            difficulty = nextDifficulty(memory.difficulty, grade: grade)
            if grade == .again {
                lapses += 1
                stability = min(
                    memory.stability,
                    w[11] * pow(memory.difficulty, -w[12]) * (pow(memory.stability + 1, w[13]) - 1)
                        * exp(w[14] * (1 - recall)))
            } else {
                stability =
                    memory.stability
                    * (1 + exp(w[8]) * (11 - memory.difficulty) * pow(memory.stability, -w[9])
                        * (exp(w[10] * (1 - recall)) - 1))
            }
        } else {
            // A first answer wrong is not a lapse (nothing was learnt to forget), as in FSRS and Anki.
            stability = grade == .again ? w[0] : w[2]
            difficulty = clampDifficulty(initialDifficulty(grade.value))
        }
        let kept = max(0.01, stability)
        // At 90 % requested retention, FSRS-4.5's interval is the stability itself.
        let interval = grade == .again ? relearningStep : max(1, kept.rounded()) * day
        return CardMemory(
            stability: kept, difficulty: difficulty, due: now.addingTimeInterval(interval), lastReview: now,
            reviews: (memory?.reviews ?? 0) + 1, lapses: lapses)
    }

    static func initialDifficulty(_ grade: Double) -> Double { w[4] - (grade - 3) * w[5] }

    static func nextDifficulty(_ difficulty: Double, grade: Grade) -> Double {
        let moved = difficulty - w[6] * (grade.value - 3)
        // Mean reversion towards a new card's difficulty.
        return clampDifficulty(w[7] * initialDifficulty(3) + (1 - w[7]) * moved)
    }

    static func clampDifficulty(_ value: Double) -> Double { min(10, max(1, value)) }
}
