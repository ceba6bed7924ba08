import ChirperCore
import FoundationEssentials

/// A quiz session: a pure machine of the REPL session. It picks each question (missed cards again soon, then
/// what is due, then new cards, each card by its memory), grades the answers and keeps the score; the session
/// plays the questions, prints the lines and keeps the memories in the store through requests.
struct QuizMachine: Sendable {
    /// One question: a recording of a card, played from `start` with nothing that names it.
    struct Question: Sendable, Hashable {
        /// 1-based, in this session.
        var number: Int
        var card: QuizCard
        var recording: Recording
        /// The species offered, in order (empty in typed mode).
        var choices: [QuizDeck.Species]
        /// In sono mode, the recording drawn for each choice (one of them is `recording`).
        var pictures: [Recording] = []
        /// Where in the recording the question begins (seconds), and where it ends (nil: at the end).
        var start: Double
        var end: Double?
    }

    /// An answered question.
    struct Outcome: Sendable, Hashable {
        var question: Question
        /// The species answered (nil: skipped).
        var answered: String?
        var right: Bool { answered == question.card.species }
    }

    enum State: Sendable, Hashable {
        /// No quiz.
        case off
        /// Work `id` builds the deck of `origin`.
        case building(id: Int, QuizOrigin, QuizSettings)
        /// The store is asked for the memories of the deck's cards.
        case loading
        /// `question` is open: its recording plays, an answer is awaited.
        /// `starting`: its recording was asked to play and the request is not answered yet.
        case asking(Question, starting: Bool)
        /// The answer to the question is being kept in the store.
        case keeping(Outcome)
        /// The question is answered and kept; the next waits for `next` (or an empty line), and `replay` plays
        /// the recording under its name. `starting`: its recording was asked to play again, not answered yet.
        case answered(Outcome, starting: Bool)
    }

    enum Action: Sendable, Hashable {
        case nothing
        /// Build the deck (off the event loop); it ends as the session's `quizDeck(id:)` event.
        case buildDeck(id: Int, QuizOrigin)
        /// Ask the store for the memories of the deck's cards and how this learner confused its species.
        case loadProgress(QuizDeck)
        /// Show and play `question` of `total`.
        case ask(Question, total: Int)
        /// Keep the outcome in the store; it is shown once kept (``show(_:then:)``).
        case keep(Outcome, deck: String)
        /// The kept outcome, shown; then `then`.
        indirect case show(Outcome, then: Action)
        /// Question `number` of `total` is answered: the quiz waits for `next`.
        case await(number: Int, total: Int)
        /// The session is over: its score.
        case finish(right: Int, asked: Int)
        case refuse(String)
    }

    private(set) var state: State = .off
    private(set) var deck: QuizDeck?
    private(set) var settings = QuizSettings()
    private var memories: [QuizCard: CardMemory] = [:]
    /// For each species, the species this learner answered in its place, and how often.
    private var confusions: [String: [String: Int]] = [:]
    /// The time the store last gave (the runner's injected clock).
    private var now = Date(timeIntervalSince1970: 0)
    private var random = SeededRandom(seed: 0)
    private var asked = 0
    private var right = 0
    /// Cards missed in this session, with the question number from which they may come back.
    private var relearning: [(card: QuizCard, from: Int)] = []
    /// New cards in the order this session meets them.
    private var newOrder: [QuizCard] = []
    private var lastCard: QuizCard?
    /// The store's refusal was said in this quiz.
    private var storeWarned = false
    /// Sono mode: the pictures of the open question being drawn.
    private var picturesAsked: PicturesAsked?

    var isOn: Bool { state != .off }

    /// The question open now, if one is.
    var openQuestion: Question? {
        if case .asking(let question, _) = state { return question }
        return nil
    }

    /// The question answered last, while the quiz waits for `next`.
    var answeredOutcome: Outcome? {
        if case .answered(let outcome, _) = state { return outcome }
        return nil
    }

    /// The origin of the deck being built.
    var buildingOrigin: QuizOrigin? {
        if case .building(_, let origin, _) = state { return origin }
        return nil
    }

    /// What the learner remembers of `card`, as the store last said.
    func memory(of card: QuizCard) -> CardMemory? { memories[card] }

    /// The open (or answered) question's recording is asked to play (again).
    mutating func awaitStart() {
        switch state {
        case .asking(let question, _): state = .asking(question, starting: true)
        case .answered(let outcome, _): state = .answered(outcome, starting: true)
        default: break
        }
    }

    /// A play request was answered: the question, if it was its recording's, and whether it is still open
    /// (then nothing may name it).
    mutating func started() -> (question: Question, open: Bool)? {
        switch state {
        case .asking(let question, starting: true):
            state = .asking(question, starting: false)
            return (question, true)
        case .answered(let outcome, starting: true):
            state = .answered(outcome, starting: false)
            return (outcome.question, false)
        default:
            return nil
        }
    }

    /// Sono mode: work `id` draws `pictures`; what it is to draw: each over the span their recordings' known
    /// lengths give from where each picture starts, or, while a length is unknown, each over the most a picture
    /// shows, the span decided when they arrive. Nil when one of them has no audio from where it starts.
    mutating func picturesAsked(id: Int, _ pictures: [QuizPicture]) -> [QuizPicture]? {
        let span = QuizPicture.commonSpan(of: pictures)
        if let span, span <= 0 {
            picturesAsked = nil
            return nil
        }
        picturesAsked = PicturesAsked(
            id: id, pictures: pictures, spanDecided: span != nil, drawn: Array(repeating: nil, count: pictures.count))
        return span.map { span in pictures.map { $0.over(span) } } ?? pictures
    }

    /// Work `id` drew `sonograms` (nil: none was drawn), one for each picture it was asked; what the session
    /// does with them.
    mutating func picturesArrived(id: Int, _ sonograms: [Sonogram]?) -> PicturesArrival {
        guard var asked = picturesAsked, asked.id == id else { return .dropped }
        picturesAsked = nil
        guard let sonograms else { return .failed }
        var arrived = sonograms.makeIterator()
        asked.drawn = asked.drawn.map { $0 ?? arrived.next() }
        let drawn = asked.drawn.compactMap { $0 }
        let span = QuizPicture.commonSpan(drawn.map(\.duration))
        guard drawn.count == asked.pictures.count, !drawn.isEmpty, span > 0 else { return .noAudio }
        if asked.spanDecided { return .show(drawn) }
        // A picture longer than the shortest would tell its recording apart: it is drawn again over its span.
        let longer = drawn.indices.filter { drawn[$0].duration > span + QuizPicture.sameSpan }
        if longer.isEmpty { return .show(drawn) }
        for index in longer { asked.drawn[index] = nil }
        asked.spanDecided = true
        picturesAsked = asked
        return .redraw(longer.map { asked.pictures[$0].over(span) })
    }

    /// Sono mode: work `id` draws again the pictures `picturesArrived` said.
    mutating func picturesRedrawn(id: Int) {
        picturesAsked?.id = id
    }

    /// True the first time in a quiz: the store's refusal is said then.
    mutating func warnStore() -> Bool {
        defer { storeWarned = true }
        return !storeWarned
    }

    /// The name a question's recording plays under.
    static func maskedLabel(_ number: Int) -> String { "quiz-\(number)" }

    /// The question's recording as the session shows it while the question is open: its audio and nothing else.
    static func masked(_ question: Question) -> Recording {
        Recording(
            id: maskedLabel(question.number), englishName: "quiz question \(question.number)",
            length: question.recording.length, audio: question.recording.audio)
    }

    /// `quiz <deck>`: ends any quiz running and builds the new deck. `seed`: the session's own, used when the
    /// settings give none.
    mutating func start(_ origin: QuizOrigin, _ settings: QuizSettings, id: Int, seed: UInt64) -> Action {
        self = QuizMachine()
        self.settings = settings
        random = SeededRandom(seed: settings.seed ?? seed)
        state = .building(id: id, origin, settings)
        return .buildDeck(id: id, origin)
    }

    /// The deck of work `id` is built, or refused.
    mutating func deckBuilt(id: Int, _ result: Result<QuizDeck, QuizDeck.Refusal>) -> Action {
        guard case .building(let current, _, _) = state, current == id else { return .nothing }
        switch result {
        case .failure(let refusal):
            state = .off
            return .refuse(refusal.description)
        case .success(let deck):
            self.deck = deck
            newOrder = deck.cards.shuffled(using: &random)
            state = .loading
            return .loadProgress(deck)
        }
    }

    /// The deck could not be fetched (the network, the catalog).
    mutating func deckFailed(id: Int, _ message: String) -> Action {
        guard case .building(let current, _, _) = state, current == id else { return .nothing }
        state = .off
        return .refuse(message)
    }

    /// The store's memories of the deck (empty when it cannot be read), at `now`.
    mutating func progressLoaded(
        _ memories: [QuizCard: CardMemory], confusions: [String: [String: Int]], now: Date
    ) -> Action {
        guard state == .loading else { return .nothing }
        self.memories = memories
        self.confusions = confusions
        self.now = now
        return nextQuestion()
    }

    /// An answer typed while `question` is open: nil `species` for `skip`.
    mutating func answer(_ species: String?) -> Action {
        guard case .asking(let question, _) = state, let deck else { return .nothing }
        let outcome = Outcome(question: question, answered: species)
        asked += 1
        if outcome.right {
            right += 1
        } else {
            // A missed card comes back after two other questions (sooner if the deck is small).
            relearning.append((question.card, question.number + min(3, max(1, deck.cards.count - 1))))
            if let species { confusions[question.card.species, default: [:]][species, default: 0] += 1 }
        }
        state = .keeping(outcome)
        return .keep(outcome, deck: deck.name)
    }

    /// The store kept the answer (or could not, which the session says): the card's new memory, at `now`. The
    /// outcome is shown only now, so that an answer shown was kept or said to be lost; then the next question at
    /// once with `--auto`, else a wait for `next`.
    mutating func kept(_ memory: CardMemory?, now: Date) -> Action {
        guard case .keeping(let outcome) = state else { return .nothing }
        if let memory { memories[outcome.question.card] = memory }
        self.now = now
        if settings.auto { return .show(outcome, then: nextQuestion()) }
        state = .answered(outcome, starting: false)
        return .show(outcome, then: .await(number: outcome.question.number, total: settings.questions))
    }

    /// `next` (or an empty line) after an answer: the next question, or the score after the last.
    mutating func next() -> Action {
        guard case .answered = state else { return .nothing }
        return nextQuestion()
    }

    /// `quiz stop`, Ctrl-C: the score so far.
    mutating func stop() -> Action {
        guard isOn else { return .refuse("no quiz is running; start one with quiz <query>, quiz saved or quiz cached") }
        let wasAsking = deck != nil
        state = .off
        return wasAsking ? .finish(right: right, asked: asked) : .refuse("quiz stopped")
    }

    private mutating func nextQuestion() -> Action {
        guard let deck else { return .nothing }
        guard asked < settings.questions, let card = pickCard(deck) else {
            state = .off
            return .finish(right: right, asked: asked)
        }
        lastCard = card
        let recordings = deck.recordings(of: card)
        let recording = recordings.randomElement(using: &random) ?? recordings[0]
        var choices: [QuizDeck.Species] = []
        var pictures: [Recording] = []
        if settings.mode != .typed, let truth = deck.species(named: card.species) {
            // Sono mode: three pictures, the sound's own and two of other species.
            let count = settings.mode == .sono ? 3 : settings.choices
            let others = deck.distractors(
                for: card.species, count: count - 1, confusions: confusions[card.species] ?? [:], using: &random)
            choices = ([truth] + others).shuffled(using: &random)
            if settings.mode == .sono {
                pictures = choices.map { species in
                    species == truth ? recording : species.recordings.randomElement(using: &random) ?? recording
                }
            }
        }
        let (start, end) = excerpt(of: recording)
        let question = Question(
            number: asked + 1, card: card, recording: recording, choices: choices, pictures: pictures, start: start,
            end: end)
        state = .asking(question, starting: false)
        return .ask(question, total: settings.questions)
    }

    /// The card to ask: a card missed in this session once its turn has come, then the most overdue card,
    /// then a new one, then the one due soonest; not the card just asked when another will do.
    private mutating func pickCard(_ deck: QuizDeck) -> QuizCard? {
        let number = asked + 1
        if let index = relearning.firstIndex(where: { $0.from <= number && $0.card != lastCard }) {
            return relearning.remove(at: index).card
        }
        let cards = deck.cards
        let due = cards.filter { card in memories[card].map { $0.due <= now } ?? false && card != lastCard }
            .sorted { memories[$0]!.due < memories[$1]!.due }
        if let first = due.first { return first }
        if let index = newOrder.firstIndex(where: { memories[$0] == nil && $0 != lastCard }) {
            return newOrder.remove(at: index)
        }
        let soonest = cards.filter { $0 != lastCard }.sorted {
            (memories[$0]?.due ?? now) < (memories[$1]?.due ?? now)
        }
        return soonest.first ?? cards.first
    }

    /// A long recording is heard from a random point, 20 s of it; a short one whole.
    private mutating func excerpt(of recording: Recording) -> (Double, Double?) {
        guard let length = recording.lengthSeconds, length > 40 else { return (0, nil) }
        let start = Double(Int.random(in: 0...Int(length - 20), using: &random))
        return (start, start + 20)
    }
}
