import ChirperCatalog
import ChirperCore
import FoundationEssentials

extension SessionMachine {
    /// The quiz as a child of the session: the quiz's commands, answers and results in, what the session does
    /// out. Its state is the ``QuizMachine``'s (which question is open, answered, being kept); the session
    /// plays the questions, prints the lines and keeps the memories in the store.
    struct Quiz: Sendable {
        /// What the quiz is told.
        enum Event: Sendable, Hashable {
            case command(QuizRequest)
            /// A line typed while a question is open, or `answer …`.
            case answer(String)
            case skip
            case replay
            /// `next` or an empty line after an answer.
            case next
            /// `quiz stop`, Ctrl-C: the deck's fetch is cancelled, the question's sound stopped, the score said.
            case stop
            /// The session leaves: a quiz still running ends with its score.
            case leave
            /// The deck's recordings arrived (or why not).
            case deck(id: Int, Result<[Recording], WorkFailure>)
            /// Sono mode's pictures arrived (or why not).
            case pictures(id: Int, Result<[Sonogram], WorkFailure>)
            /// A play request was answered.
            case started
            /// The store answered.
            case store(QuizAnswerEvent)
        }

        /// What the quiz asks of the session, in order.
        enum Action: Sendable, Hashable {
            case print([String])
            case refuse(String)
            /// A script's next line waits for the quiz (its deck, its pictures).
            case hold
            /// The deck was built or refused, or the pictures drawn: a line waiting for them runs.
            case ready
            case request(Request)
            /// A quiz starts: the queue holds and A/B listening ends.
            case takePlayback
            case buildDeck(id: Int, QuizOrigin)
            case cancelDeck
            case drawPictures(id: Int, [QuizPicture])
            /// The request just answered plays the open question: it is shown as this recording.
            case mask(Recording)
            /// The question is answered: what its request still plays is named as this recording.
            case unmask(Recording)
        }

        /// What the quiz knows of the session: fixed at its start.
        struct Setup: Sendable {
            var presenter: Presenter
            var interactive: Bool
            var seed: UInt64
            var contrast: SonogramContrast
        }

        let setup: Setup
        /// The quiz's state (`QuizMachine.State`) and its deck, memories and score.
        private(set) var machine = QuizMachine()
        private var actions: [Action] = []

        init(_ setup: Setup) {
            self.setup = setup
        }

        var presenter: Presenter { setup.presenter }

        /// Takes one event; `ids` names each piece of work started.
        mutating func handle(_ event: Event, ids: inout WorkIDs) -> [Action] {
            switch event {
            case .command(let request): command(request, ids: &ids)
            case .answer(let text): answer(text, ids: &ids)
            case .skip: skip(ids: &ids)
            case .replay: replay()
            case .next: run(machine.next(), ids: &ids)
            case .stop: stop(ids: &ids)
            case .leave: if machine.isOn { run(machine.stop(), ids: &ids) }
            case .deck(let id, let result): deckFetched(id: id, result, ids: &ids)
            case .pictures(let id, let result): picturesDrawn(id: id, result, ids: &ids)
            case .started: started()
            case .store(let answer): take(answer, ids: &ids)
            }
            defer { actions = [] }
            return actions
        }

        private mutating func command(_ request: QuizRequest, ids: inout WorkIDs) {
            switch request {
            case .start(let origin, let settings):
                actions.append(.takePlayback)
                let id = ids.next()
                run(machine.start(origin, settings, id: id, seed: setup.seed &+ UInt64(id)), ids: &ids)
            case .stop:
                stop(ids: &ids)
            case .stats:
                actions.append(.request(.quizStats))
            case .export(let path):
                actions.append(.request(.exportQuiz(path: path)))
            }
        }

        private mutating func stop(ids: inout WorkIDs) {
            if machine.buildingOrigin != nil { actions.append(.cancelDeck) }
            let wasAsking = machine.openQuestion != nil
            run(machine.stop(), ids: &ids)
            if wasAsking { actions.append(.request(.stop(.quiet))) }
        }

        private mutating func answer(_ text: String, ids: inout WorkIDs) {
            if let outcome = machine.answeredOutcome {
                actions.append(.refuse(answeredAlready(outcome)))
                return
            }
            guard let question = machine.openQuestion, let deck = machine.deck else {
                actions.append(
                    .refuse("no quiz question is open; start one with quiz <query>, quiz saved or quiz cached"))
                return
            }
            switch QuizAnswer.match(text, choices: question.choices, deck: deck) {
            case .species(let species):
                run(machine.answer(species), ids: &ids)
            case .outOfRange(let number, let count):
                actions.append(.refuse("there is no choice \(number): answer 1 to \(count), or a name"))
            case .unknown(let closest):
                let shown = TerminalText.sanitize(String(text.prefix(40)))
                actions.append(
                    .refuse(
                        "no species '\(shown)' in this deck"
                            + (closest.isEmpty
                                ? "" : "; closest: \(closest.map(TerminalText.sanitize).joined(separator: ", "))")))
            }
        }

        private mutating func skip(ids: inout WorkIDs) {
            if machine.answeredOutcome != nil {
                run(machine.next(), ids: &ids)
                return
            }
            guard machine.openQuestion != nil else {
                actions.append(.refuse("no quiz question is open; start one with quiz <query>"))
                return
            }
            run(machine.answer(nil), ids: &ids)
        }

        private mutating func replay() {
            if let outcome = machine.answeredOutcome {
                playAnswered(outcome.question)
                return
            }
            guard let question = machine.openQuestion else {
                actions.append(.refuse("no quiz question is open; play <n> plays a row"))
                return
            }
            playQuestion(question)
        }

        private func answeredAlready(_ outcome: QuizMachine.Outcome) -> String {
            let last = outcome.question.number >= machine.settings.questions
            return "question \(outcome.question.number) is answered: next (or Enter) "
                + (last ? "shows the score" : "asks the next one") + ", replay hears it again under its name"
        }

        /// Runs what the quiz machine decided.
        private mutating func run(_ action: QuizMachine.Action, ids: inout WorkIDs) {
            switch action {
            case .nothing:
                break
            case .buildDeck(let id, let origin):
                actions.append(.print([presenter.quizBuilding(origin)]))
                if !setup.interactive { actions.append(.hold) }
                actions.append(.buildDeck(id: id, origin))
            case .loadProgress(let deck):
                actions.append(.ready)
                actions.append(.print([presenter.quizDeck(deck)]))
                actions.append(.request(.loadQuiz(deck)))
            case .ask(let question, let total):
                let offered = question.pictures.isEmpty ? question.choices : []
                actions.append(
                    .print(
                        presenter.quizQuestion(
                            question.number, of: total, choices: offered, pictures: question.pictures.count)))
                playQuestion(question)
                if !question.pictures.isEmpty { drawPictures(question, ids: &ids) }
            case .keep(let outcome, let deck):
                actions.append(
                    .request(
                        .keepQuizAnswer(
                            QuizAnswerRecord(
                                deck: deck, card: outcome.question.card, recording: outcome.question.recording.label,
                                answered: outcome.answered, previous: machine.memory(of: outcome.question.card)))))
            case .show(let outcome, let then):
                let truth = machine.deck?.species(named: outcome.question.card.species)
                let answered = outcome.answered.flatMap { machine.deck?.species(named: $0) }
                actions.append(
                    .print(
                        presenter.quizOutcome(
                            right: outcome.right, recording: outcome.question.recording,
                            species: truth?.scientificName ?? outcome.question.card.species,
                            englishName: truth?.englishName ?? "", answered: answered?.englishName,
                            skipped: outcome.answered == nil)))
                run(then, ids: &ids)
            case .await(let number, let total):
                actions.append(.print([presenter.quizAwait(number, of: total)]))
            case .finish(let right, let asked):
                actions.append(.print([presenter.quizScore(right: right, asked: asked)]))
                actions.append(.request(.stop(.quiet)))
            case .refuse(let text):
                actions.append(.ready)
                actions.append(.refuse(text))
            }
        }

        /// Sono mode: the three pictures in the bird band, each from where its sound is heard (the question's
        /// excerpt, or the start); the runner draws them all over the same span (``QuizPicture``).
        private mutating func drawPictures(_ question: QuizMachine.Question, ids: inout WorkIDs) {
            let (width, _) = presenter.sonogramShape
            let columns = max(8, width - SonogramRenderer.gutterWidth - 1)
            let rows = (setup.interactive ? 5 : 8) * presenter.sonogramRenderer.rowsPerLine
            let pictures = question.pictures.enumerated().compactMap { index, recording -> QuizPicture? in
                guard let item = recording.playItem else { return nil }
                let start = recording == question.recording ? question.start : 0
                let masked = PlayItem(
                    label: "\(QuizMachine.maskedLabel(question.number))-\(index + 1)", location: item.location,
                    expectedDuration: item.expectedDuration)
                return QuizPicture(
                    item: masked,
                    shape: SonogramShape(
                        columns: columns, rows: rows, maxFrequency: 12_000, minFrequency: 0,
                        window: TimeSpan(start: start, end: start + QuizPicture.longest), contrast: setup.contrast))
            }
            let id = ids.next()
            guard let drawn = machine.picturesAsked(id: id, pictures) else {
                actions.append(.refuse(Self.noPictureAudio))
                return
            }
            if !setup.interactive { actions.append(.hold) }
            actions.append(.drawPictures(id: id, drawn))
        }

        /// Why sono mode shows no pictures when one of them has no audio from where it starts.
        static let noPictureAudio =
            "sono: no pictures: a recording has no audio where its picture starts; skip goes on to the next question"

        private mutating func picturesDrawn(id: Int, _ result: Result<[Sonogram], WorkFailure>, ids: inout WorkIDs) {
            let arrival = machine.picturesArrived(id: id, try? result.get())
            switch arrival {
            case .dropped:
                return
            case .redraw(let pictures) where machine.openQuestion != nil:
                // The line waiting for them still waits.
                let id = ids.next()
                machine.picturesRedrawn(id: id)
                actions.append(.drawPictures(id: id, pictures))
                return
            default:
                break
            }
            actions.append(.ready)
            guard machine.openQuestion != nil else { return }
            switch (arrival, result) {
            case (.show(let sonograms), _): actions.append(.print(presenter.quizPictures(sonograms)))
            case (.noAudio, _): actions.append(.refuse(Self.noPictureAudio))
            case (_, .failure(.failed(let message))):
                actions.append(.refuse(message + "; skip goes on to the next question"))
            default: break
            }
        }

        /// Plays the question's recording under a name that gives nothing away.
        private mutating func playQuestion(_ question: QuizMachine.Question) {
            guard let item = question.recording.playItem else { return }
            let masked = PlayItem(
                label: QuizMachine.maskedLabel(question.number), location: item.location,
                expectedDuration: item.expectedDuration)
            machine.awaitStart()
            actions.append(.request(.play(masked, question.recording, forQueue: false)))
        }

        /// `replay` after the answer: the same stretch, under the recording's own name.
        private mutating func playAnswered(_ question: QuizMachine.Question) {
            guard let item = question.recording.playItem else { return }
            machine.awaitStart()
            actions.append(.request(.play(item, question.recording, forQueue: false)))
        }

        /// A play request was answered: if it is a question's, a long recording plays only its excerpt, and
        /// while the question is open what plays is shown masked.
        private mutating func started() {
            guard let (question, open) = machine.started() else { return }
            if let end = question.end {
                actions.append(.request(.control(.section(.absolute(question.start), .absolute(end), nil))))
            }
            if open { actions.append(.mask(QuizMachine.masked(question))) }
        }

        private mutating func deckFetched(id: Int, _ result: Result<[Recording], WorkFailure>, ids: inout WorkIDs) {
            switch result {
            case .success(let recordings):
                guard let origin = machine.buildingOrigin else { return }
                run(
                    machine.deckBuilt(
                        id: id, QuizDeck.make(name: origin.deckName, family: origin.family, recordings: recordings)),
                    ids: &ids)
            case .failure(.stopped):
                run(machine.deckFailed(id: id, "quiz stopped"), ids: &ids)
            case .failure(.failed(let message)):
                run(machine.deckFailed(id: id, message), ids: &ids)
            }
        }

        private mutating func take(_ answer: QuizAnswerEvent, ids: inout WorkIDs) {
            switch answer {
            case .loaded(let loaded, let now):
                // A store that cannot be read: the quiz goes on from nothing known.
                var progress = QuizProgress()
                switch loaded {
                case .success(let known): progress = known
                case .failure(let refusal): warnStore(refusal.line)
                }
                run(machine.progressLoaded(progress.memories, confusions: progress.confusions, now: now), ids: &ids)
            case .kept(let memory, let now, let outcome):
                if case .failure(let refusal) = outcome { warnStore(refusal.line) }
                run(machine.kept(memory, now: now), ids: &ids)
                // Once a question is answered nothing is left to give away: what its request still plays is
                // named, with its length and position, while the quiz waits for `next`.
                if let outcome = machine.answeredOutcome { actions.append(.unmask(outcome.question.recording)) }
            case .stats(.success(let stats)):
                actions.append(.print(presenter.quizStats(stats)))
            case .stats(.failure(let refusal)):
                actions.append(.refuse(refusal.line))
            case .exported(let path, .success(let rows)):
                actions.append(.print([presenter.quizExported(path, rows: rows)]))
            case .exported(_, .failure(let refusal)):
                actions.append(.refuse(refusal.line))
            }
        }

        /// The store cannot keep answers: said once a quiz, and the quiz goes on.
        private mutating func warnStore(_ refusal: String) {
            guard machine.warnStore() else { return }
            actions.append(.refuse(refusal + "; the quiz goes on without keeping answers"))
        }
    }
}

/// The store's answers to the quiz's requests.
enum QuizAnswerEvent: Sendable, Hashable {
    /// The deck's progress, or why the store cannot be read, at the runner's `now`.
    case loaded(Result<QuizProgress, SessionMachine.Refusal>, now: Date)
    /// The answered card's new memory at `now`, computed whether or not the store could keep it (`outcome`).
    case kept(CardMemory, now: Date, SessionMachine.Outcome)
    case stats(Result<QuizStats, SessionMachine.Refusal>)
    /// The rows written to `path`, or why not.
    case exported(path: String, Result<Int, SessionMachine.Refusal>)
}
